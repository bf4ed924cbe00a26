package dev.qinglong.core.kernel;

/** The caller is authenticated but the Project Policy (or the four-eyes rule) does not allow it. */
public final class ForbiddenException extends QingLongException {
  public ForbiddenException(String message) {
    super(message);
  }
}
