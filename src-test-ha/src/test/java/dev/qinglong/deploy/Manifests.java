package dev.qinglong.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Kubernetes objects a kustomization renders to, either by {@code kubectl kustomize} or, where
 * kubectl is missing, structurally: the listed resources (recursively) with the {@code patches}
 * merged the way strategic merge patches merge these objects (maps deeply, containers, env and
 * volumes by name, volume mounts by path, other lists replaced).
 */
final class Manifests {
  enum Renderer {
    KUBECTL,
    STRUCTURAL
  }

  /**
   * Lists that strategic merge patches merge item by item, and the key that identifies an item (the
   * patchMergeKey of the Kubernetes API types); every other list is replaced.
   */
  private static final Map<String, String> MERGE_KEYS =
      Map.of(
          "containers", "name",
          "initContainers", "name",
          "env", "name",
          "volumes", "name",
          "volumeMounts", "mountPath");

  private final List<Map<String, Object>> objects;

  private Manifests(List<Map<String, Object>> objects) {
    this.objects = objects;
  }

  static Optional<Path> kubectl() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "kubectl"))) {
        return Optional.of(Path.of(dir, "kubectl"));
      }
    }
    return Optional.empty();
  }

  static Manifests render(Path kustomization, Renderer renderer) {
    return new Manifests(
        renderer == Renderer.KUBECTL ? kubectlKustomize(kustomization) : structural(kustomization));
  }

  /**
   * Merges the strategic merge patches of {@code file} into this rendering, the way the structural
   * renderer merges an overlay's {@code patches}: for checking an optional patch that a
   * kustomization does not list.
   */
  Manifests patchedWith(Path file) {
    applyPatches(objects, file);
    return this;
  }

  List<Map<String, Object>> all() {
    return objects;
  }

  List<Map<String, Object>> ofKind(String kind) {
    return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
  }

  Map<String, Object> get(String kind, String name) {
    return objects.stream()
        .filter(o -> kind.equals(o.get("kind")) && name.equals(at(o, "metadata", "name")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " rendered"));
  }

  // ---------------------------------------------------------------- navigation

  /** Follows map keys (String) and list indexes (Integer); null if any step is missing. */
  static Object at(Object root, Object... path) {
    Object current = root;
    for (Object step : path) {
      if (step instanceof String key && current instanceof Map<?, ?> map) {
        current = map.get(key);
      } else if (step instanceof Integer index && current instanceof List<?> list) {
        current = index < list.size() ? list.get(index) : null;
      } else {
        return null;
      }
    }
    return current;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object root, Object... path) {
    Object value = at(root, path);
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object root, Object... path) {
    Object value = at(root, path);
    return value instanceof List<?> l ? (List<Object>) l : List.of();
  }

  // ---------------------------------------------------------------- rendering

  private static List<Map<String, Object>> kubectlKustomize(Path dir) {
    Path kubectl = kubectl().orElseThrow(() -> new IllegalStateException("kubectl not on PATH"));
    try {
      Path out = Files.createTempFile("kustomize-", ".yaml");
      Path err = Files.createTempFile("kustomize-", ".err");
      try {
        Process p =
            new ProcessBuilder(kubectl.toString(), "kustomize", dir.toString())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
          throw new AssertionError(
              "kubectl kustomize " + dir + " failed: " + Files.readString(err));
        }
        return loadAll(Files.readString(out, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<Map<String, Object>> structural(Path dir) {
    Map<String, Object> kustomization = loadAll(read(dir.resolve("kustomization.yaml"))).get(0);
    List<Map<String, Object>> objects = new ArrayList<>();
    for (Object resource : list(kustomization, "resources")) {
      Path path = dir.resolve((String) resource).normalize();
      if (Files.isDirectory(path)) {
        objects.addAll(structural(path));
      } else {
        objects.addAll(loadAll(read(path)));
      }
    }
    for (Object patch : list(kustomization, "patches")) {
      applyPatches(objects, dir.resolve((String) map(patch).get("path")));
    }
    return objects;
  }

  private static void applyPatches(List<Map<String, Object>> objects, Path file) {
    for (Map<String, Object> p : loadAll(read(file))) {
      Map<String, Object> target =
          objects.stream()
              .filter(
                  o ->
                      p.get("kind").equals(o.get("kind"))
                          && at(p, "metadata", "name").equals(at(o, "metadata", "name")))
              .findFirst()
              .orElseThrow(() -> new AssertionError("patch without target: " + p));
      merge(target, p);
    }
  }

  @SuppressWarnings("unchecked")
  private static void merge(Map<String, Object> target, Map<String, Object> patch) {
    for (Map.Entry<String, Object> e : patch.entrySet()) {
      Object existing = target.get(e.getKey());
      Object incoming = e.getValue();
      if (existing instanceof Map<?, ?> em && incoming instanceof Map<?, ?> im) {
        merge((Map<String, Object>) em, (Map<String, Object>) im);
      } else if (existing instanceof List<?> el
          && incoming instanceof List<?> il
          && MERGE_KEYS.containsKey(e.getKey())) {
        String mergeKey = MERGE_KEYS.get(e.getKey());
        List<Object> merged = new ArrayList<>((List<Object>) el);
        for (Object item : il) {
          Object name = map(item).get(mergeKey);
          Optional<Object> same =
              merged.stream()
                  .filter(m -> name != null && name.equals(map(m).get(mergeKey)))
                  .findFirst();
          if (same.isPresent()) {
            merge(map(same.get()), map(item));
          } else {
            merged.add(item);
          }
        }
        target.put(e.getKey(), merged);
      } else {
        target.put(e.getKey(), incoming);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> loadAll(String yaml) {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
      if (doc instanceof Map<?, ?> m) {
        docs.add(new LinkedHashMap<>((Map<String, Object>) m));
      }
    }
    return docs;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
