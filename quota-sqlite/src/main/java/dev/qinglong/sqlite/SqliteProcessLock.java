package dev.qinglong.sqlite;

import dev.qinglong.core.kernel.OwnerOnlyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The one-process rule of the embedded store (SQLite is for one process, see
 * docs/design.md#stores): an exclusive OS lock on {@code <database file>.lock}, held for as long as
 * the process uses the file. A second process on the same file is refused at start with {@link
 * SqliteInUseException} instead of running a second publication worker and a second whole download
 * budget on the same data.
 *
 * <p>Hand-written on purpose: SQLite's own locks serialise statements, not processes, and a lock
 * file that merely exists would outlive a killed process. An OS lock ({@link FileChannel#tryLock},
 * {@code fcntl} on Linux) is released by the kernel when its process dies, SIGKILL included, so a
 * restart after a crash is never refused. The lock file itself stays (empty) and is harmless.
 */
public final class SqliteProcessLock implements AutoCloseable {
  private final Path lockFile;
  private final FileChannel channel;
  private final FileLock lock;

  private SqliteProcessLock(Path lockFile, FileChannel channel, FileLock lock) {
    this.lockFile = lockFile;
    this.channel = channel;
    this.lock = lock;
  }

  /** {@code <database file>.lock}. */
  public static Path lockFileOf(Path databaseFile) {
    Path file = databaseFile.toAbsolutePath().normalize();
    return file.resolveSibling(file.getFileName() + ".lock");
  }

  /**
   * Takes the lock of {@code databaseFile}, creating its directory (mode 0700) if missing.
   *
   * @throws SqliteInUseException if another process (or another open of this process) holds it
   * @throws UncheckedIOException if the lock file cannot be created or locked
   */
  public static SqliteProcessLock acquire(Path databaseFile) {
    Path lockFile = lockFileOf(databaseFile);
    FileChannel channel;
    try {
      OwnerOnlyFiles.createDirectories(lockFile.getParent());
      channel = OwnerOnlyFiles.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the SQLite lock file " + lockFile, e);
    }
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // this JVM already holds it: the same rule applies
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot lock the SQLite lock file " + lockFile, e);
    }
    if (lock == null) {
      closeQuietly(channel);
      throw new SqliteInUseException(
          "the SQLite database "
              + databaseFile.toAbsolutePath().normalize()
              + " is already in use by another QingLong process (it holds "
              + lockFile
              + "): SQLite runs as one process; stop the other process, give this one another"
              + " qinglong.data-dir, or use qinglong.store=postgres for several replicas");
    }
    return new SqliteProcessLock(lockFile, channel, lock);
  }

  /** The lock file. */
  public Path lockFile() {
    return lockFile;
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // Closing the channel below releases it as well.
    } finally {
      closeQuietly(channel);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Nothing more to release.
    }
  }

  /** Another process already uses the SQLite file. */
  public static final class SqliteInUseException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    SqliteInUseException(String message) {
      super(message);
    }
  }
}
