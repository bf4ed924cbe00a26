package dev.qinglong.app.platform;

/** Process roles of {@code qinglong.role} (DESIGN §6). */
public enum Role {
  ALL,
  WRITER,
  READER,
  WORKER
}
