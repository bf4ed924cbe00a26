package dev.qinglong.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository explains itself: every relative link of README.md and docs/ names a file that
 * exists and, with a {@code #fragment}, a heading of it; and no document or main source file points
 * at design notes that do not ship with the project (the notes the project started from, cited as
 * the design note and a section number, an ADR number, or a path outside the repository). The only
 * citations left are in the released, checksum-pinned migrations listed here: docs/stores.md says
 * what they refer to.
 */
class RepositoryDocsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** Released migrations whose comments cite the starting notes; their checksums are pinned. */
  private static final Set<String> PINNED_CITING =
      Set.of(
          "quota-postgres/src/main/resources/db/postgres/V1__management_quota_and_governance.sql",
          "quota-postgres/src/main/resources/db/postgres/V2__model_usage_read_quota_operation.sql",
          "quota-postgres/src/main/resources/db/postgres/V3__completion_worker_publication.sql",
          "quota-postgres/src/main/resources/db/postgres/V4__management_quota_receipt_request_digest.sql",
          "quota-postgres/src/main/resources/db/postgres/V6__artifact_upload_quota_operation.sql",
          "quota-postgres/src/main/resources/db/postgres-ai/V1__model_invocation_quota.sql",
          "quota-postgres/src/main/resources/db/postgres-downloads/V1__download_policy_and_slot_leases.sql",
          "quota-postgres/src/main/resources/db/postgres-downloads/V2__reader_reads_published_artifacts.sql",
          "quota-sqlite/src/main/resources/db/sqlite/V1__management_quota_and_governance.sql",
          "quota-sqlite/src/main/resources/db/sqlite/V2__model_usage_read_quota_operation.sql",
          "quota-sqlite/src/main/resources/db/sqlite/V3__management_quota_receipt_request_digest.sql",
          "quota-sqlite/src/main/resources/db/sqlite/V4__artifact_upload_quota_operation.sql",
          "quota-sqlite/src/main/resources/db/sqlite-ai/V1__model_invocation_quota.sql");

  private static final Pattern OUTSIDE =
      Pattern.compile("DESIGN(\\.md)? ?§|\\bADRs?[- ]?0\\d\\d|\\.\\./shared|shared/seeds");
  private static final String GLOSSARY = "### What the first migrations' comments refer to";
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#+\\s+(.*)$");

  @Test
  void everyRelativeLinkOfTheDocsNamesAFileAndAHeadingThatExist() throws IOException {
    List<String> broken = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    for (Path doc : documents()) {
      List<String> lines = prose(doc);
      for (int n = 0; n < lines.size(); n++) {
        Matcher m = LINK.matcher(lines.get(n));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z]+:.*")) {
            continue; // https:, mailto: …
          }
          int hash = target.indexOf('#');
          String file = hash < 0 ? target : target.substring(0, hash);
          Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
          String where = ROOT.relativize(doc) + ":" + (n + 1) + " " + target;
          if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
            broken.add(where + " (no such file in the repository)");
          } else if (hash >= 0 && resolved.toString().endsWith(".md")) {
            String fragment = target.substring(hash + 1);
            if (!anchors
                .computeIfAbsent(resolved, RepositoryDocsTest::headings)
                .contains(fragment)) {
              broken.add(where + " (no such heading)");
            }
          }
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void noDocumentOrMainSourceCitesNotesOutsideTheRepository() throws IOException {
    List<String> citing = new ArrayList<>();
    List<Path> files = new ArrayList<>(documents());
    try (Stream<Path> all = Files.walk(ROOT)) {
      all.filter(Files::isRegularFile)
          .filter(p -> ROOT.relativize(p).toString().contains("/src/main/"))
          .filter(p -> !ROOT.relativize(p).toString().matches(".*/(target|node_modules)/.*"))
          .forEach(files::add);
    }
    for (Path file : files) {
      String name = ROOT.relativize(file).toString();
      String text;
      try {
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (java.nio.charset.MalformedInputException binary) {
        continue;
      }
      if (name.equals("docs/stores.md")) {
        text = withoutSection(text, GLOSSARY); // names the citations in order to explain them
      }
      if (OUTSIDE.matcher(text).find() && !PINNED_CITING.contains(name)) {
        citing.add(name);
      }
    }
    assertThat(citing).isEmpty();
    // The exceptions are real: each still cites (else it should leave the list) and is explained.
    String stores = Files.readString(ROOT.resolve("docs/stores.md"), StandardCharsets.UTF_8);
    assertThat(stores).contains(GLOSSARY);
    for (String pinned : PINNED_CITING) {
      assertThat(OUTSIDE.matcher(Files.readString(ROOT.resolve(pinned))).find())
          .as(pinned)
          .isTrue();
    }
  }

  private static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> walk = Files.walk(ROOT.resolve("docs"))) {
      walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** {@code text} without the section that starts at {@code heading}, up to the next heading. */
  private static String withoutSection(String text, String heading) {
    int start = text.indexOf(heading);
    if (start < 0) {
      return text;
    }
    int end = text.indexOf("\n#", start + heading.length());
    return text.substring(0, start) + (end < 0 ? "" : text.substring(end));
  }

  /** The lines outside fenced code blocks. */
  private static List<String> prose(Path doc) {
    List<String> out = new ArrayList<>();
    boolean code = false;
    try {
      for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
        if (line.startsWith("```")) {
          code = !code;
          out.add("");
        } else {
          out.add(code ? "" : line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The anchors GitHub gives the headings of a Markdown file. */
  private static Set<String> headings(Path doc) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : prose(doc)) {
      Matcher m = HEADING.matcher(line);
      if (m.matches()) {
        String slug =
            m.group(1)
                .strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
        int n = seen.merge(slug, 1, Integer::sum);
        anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
      }
    }
    return anchors;
  }
}
