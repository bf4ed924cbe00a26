package dev.qinglong.app.platform;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Files of the data directory that hold credentials (the dev tokens, the webhook sealing key):
 * created readable and writable by their owner only, and refused at start when anyone else may read
 * or write them or when they are not a regular file (a symbolic link's own mode is 0777, so a link
 * could point the process at a file others control). On a file system without POSIX modes the modes
 * are not set and not checked.
 */
public final class OwnerOnlyFiles {
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private OwnerOnlyFiles() {}

  static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }

  /** Creates missing directories with mode 0700; existing ones are left as they are. */
  public static void createDirectories(Path dir) throws IOException {
    if (posix()) {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } else {
      Files.createDirectories(dir);
    }
  }

  /**
   * Creates an empty file with mode 0600 from its first instant (never readable by others, not even
   * between creation and a later chmod).
   *
   * @throws java.nio.file.FileAlreadyExistsException if it exists
   */
  public static void createFile(Path file) throws IOException {
    if (posix()) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } else {
      Files.createFile(file);
    }
  }

  /** Sets mode 0600 again after writing (a umask cannot have widened it, this makes it certain). */
  public static void restrict(Path file) throws IOException {
    if (posix()) {
      Files.setPosixFilePermissions(file, OWNER_ONLY);
    }
  }

  /**
   * Refuses a file that anyone but its owner may read or write, or that is not a regular file.
   * Read-only for the owner (0400) is accepted.
   *
   * @param what how the start failure names the file, e.g. "dev-tokens file"
   * @param remedy what the operator may do besides {@code chmod 600}, or an empty string
   * @throws IllegalStateException naming the file, its mode and the remedy
   */
  public static void requireOwnerOnly(Path file, String what, String remedy) throws IOException {
    if (!posix()) {
      return;
    }
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    Set<PosixFilePermission> loose = EnumSet.copyOf(mode);
    loose.removeAll(OWNER_ONLY);
    if (!loose.isEmpty() || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalStateException(
          what
              + " "
              + file
              + " has mode "
              + PosixFilePermissions.toString(mode)
              + " (or is not a regular file); it must be readable and writable by its owner only:"
              + " chmod 600 it"
              + remedy);
    }
  }
}
