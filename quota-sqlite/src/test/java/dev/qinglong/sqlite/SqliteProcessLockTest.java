package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.sqlite.SqliteProcessLock.SqliteInUseException;
import dev.qinglong.sqlite.backend.SqliteBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-process rule of the embedded store, inside one JVM (the separate-process case is {@code
 * SqliteCrashIT} of app-server): a second open of the same file is refused until the first closes.
 */
class SqliteProcessLockTest {
  @TempDir Path dir;

  @Test
  void aSecondLockOfTheSameFileIsRefusedUntilTheFirstIsReleased() {
    Path file = dir.resolve("sub").resolve("qinglong.db");
    try (SqliteProcessLock lock = SqliteProcessLock.acquire(file)) {
      assertThat(lock.lockFile()).isEqualTo(dir.resolve("sub").resolve("qinglong.db.lock"));
      assertThat(Files.exists(lock.lockFile())).isTrue();
      assertThatThrownBy(() -> SqliteProcessLock.acquire(file))
          .isInstanceOf(SqliteInUseException.class)
          .hasMessageContaining("already in use by another QingLong process")
          .hasMessageContaining("qinglong.db.lock");
    }
    SqliteProcessLock.acquire(file).close();
  }

  @Test
  void aSecondBackendOnTheSameFileIsRefusedBeforeItOpensAnything() {
    Path file = dir.resolve("qinglong.db");
    BackendParts parts = new BackendParts(true, false, true, true);
    try (dev.qinglong.backend.OpenedStore first =
        SqliteBackend.open(file, false, parts, DataSourceDecorator.NONE)) {
      assertThat(first.kind()).isEqualTo("sqlite");
      assertThatThrownBy(() -> SqliteBackend.open(file, false, parts, DataSourceDecorator.NONE))
          .isInstanceOf(SqliteInUseException.class);
      assertThatThrownBy(() -> SqliteBackend.migrate(file, false))
          .isInstanceOf(SqliteInUseException.class);
    }
    // Closed: the file is free again.
    SqliteBackend.open(file, false, parts, DataSourceDecorator.NONE).close();
  }
}
