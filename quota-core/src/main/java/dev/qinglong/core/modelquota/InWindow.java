package dev.qinglong.core.modelquota;

/** A receipt that belongs to one Project quota window, named by its own members. */
public interface InWindow {
  String projectId();

  long windowStartMs();

  long windowMs();

  /** The window this receipt counts in. */
  default WindowRef window() {
    return new WindowRef(projectId(), windowStartMs(), windowMs());
  }
}
