package dev.qinglong.core.quota;

/** Whose consumption a bucket counts. ADR 000 fixes the subject to the authenticated User. */
public enum SubjectType {
  USER("user");

  private final String wireName;

  SubjectType(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }
}
