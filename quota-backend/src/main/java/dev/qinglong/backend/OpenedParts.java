package dev.qinglong.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a backend opened, in order, so that it closes them in reverse and a failed start releases
 * what it had taken. Not thread-safe: used while a backend opens and once when it closes.
 */
public final class OpenedParts implements AutoCloseable {
  private final List<AutoCloseable> resources = new ArrayList<>();

  /** Remembers {@code resource} for closing; returns it. */
  public <T extends AutoCloseable> T add(T resource) {
    resources.add(Objects.requireNonNull(resource));
    return resource;
  }

  /**
   * Asks for a part that may not have been opened.
   *
   * @throws IllegalStateException if it was not: the app asked its backend for a part its role does
   *     not have
   */
  public static <T> T require(T part, String name) {
    if (part == null) {
      throw new IllegalStateException(
          name + " was not opened for this process's role. Indicates a bug.");
    }
    return part;
  }

  @Override
  public void close() {
    closeAll(null);
  }

  /** Closes everything and returns {@code failure} to rethrow; for a start that failed half-way. */
  public RuntimeException closeAfter(RuntimeException failure) {
    closeAll(failure);
    return failure;
  }

  /** Closes in reverse order; a close failure is added to {@code failure}, if any, else dropped. */
  private void closeAll(RuntimeException failure) {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        if (failure != null) {
          failure.addSuppressed(e);
        }
      }
    }
    resources.clear();
  }
}
