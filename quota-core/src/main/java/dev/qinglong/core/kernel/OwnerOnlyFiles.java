package dev.qinglong.core.kernel;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The one rule for what QingLong writes to disk (the data directory's credential files, the SQLite
 * database and its lock file, stored artifacts): created readable and writable by their owner only
 * from their first instant (directories 0700, files 0600, never widened between creation and a
 * later chmod), and a credential file that anyone else may read or write, or that is not a regular
 * file, refused (a symbolic link's own mode is 0777, so a link could point the process at a file
 * others control). On a file system without POSIX modes the modes are not set and not checked.
 *
 * <p>It lives in the core, although the core does no other I/O, because the core is the one module
 * that every module writing files (the app, the gateway's artifact store, the SQLite store) builds
 * on; it uses the JDK only.
 */
public final class OwnerOnlyFiles {
  private static final Set<PosixFilePermission> OWNER_ONLY_FILE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  private OwnerOnlyFiles() {}

  /** Whether this file system has POSIX modes (otherwise nothing here sets or checks one). */
  public static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }

  /** Creates missing directories with mode 0700; existing ones are left as they are. */
  public static void createDirectories(Path dir) throws IOException {
    Files.createDirectories(dir, modes(OWNER_ONLY_DIRECTORY));
  }

  /**
   * Creates an empty file with mode 0600.
   *
   * @throws java.nio.file.FileAlreadyExistsException if it exists
   */
  public static void createFile(Path file) throws IOException {
    Files.createFile(file, modes(OWNER_ONLY_FILE));
  }

  /**
   * Opens {@code file} with {@code options}; a file the open creates has mode 0600, an existing one
   * keeps its mode.
   */
  public static FileChannel open(Path file, OpenOption... options) throws IOException {
    return FileChannel.open(file, Set.of(options), modes(OWNER_ONLY_FILE));
  }

  /** Sets mode 0600 again after writing (a umask cannot have widened it, this makes it certain). */
  public static void restrict(Path file) throws IOException {
    if (posix()) {
      Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
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
    loose.removeAll(OWNER_ONLY_FILE);
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

  /** {@code mode} as the attribute of a creation; none where the file system has no modes. */
  private static FileAttribute<?>[] modes(Set<PosixFilePermission> mode) {
    return posix()
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)}
        : new FileAttribute<?>[0];
  }
}
