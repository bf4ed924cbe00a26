package dev.qinglong.app.platform;

/** Process roles of {@code qinglong.role} (docs/design.md#process-roles). */
public enum Role {
  ALL,
  WRITER,
  READER,
  WORKER
}
