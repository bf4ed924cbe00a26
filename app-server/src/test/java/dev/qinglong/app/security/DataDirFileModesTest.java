package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.http.security.DevTokens;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.sqlite.SqliteDatabase;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everything created under the data dir is its owner's only: directories 0700, the SQLite database
 * (and its WAL and shared-memory files), artifacts and dev tokens 0600; an existing dev-tokens file
 * with a looser mode is refused. POSIX file systems only.
 */
class DataDirFileModesTest {
  @TempDir Path tmp;
  private Path dataDir;

  @BeforeEach
  void posixOnly() {
    assumeTrue(
        FileSystems.getDefault().supportedFileAttributeViews().contains("posix"),
        "file modes need a POSIX file system");
    dataDir = tmp.resolve("data");
  }

  @Test
  void devTokensAreCreatedOwnerOnly() throws IOException {
    DevTokens tokens = DevTokens.loadOrCreate(dataDir);
    assertThat(mode(tokens.file())).isEqualTo("rw-------");
    assertThat(mode(dataDir)).isEqualTo("rwx------");
    // A second start reads the same file.
    assertThat(DevTokens.loadOrCreate(dataDir).users()).isEqualTo(tokens.users());
  }

  @Test
  void aLooserDevTokensFileIsRefused() throws IOException {
    Path file = DevTokens.loadOrCreate(dataDir).file();
    for (String loose : List.of("rw-r--r--", "rw-rw----", "rw----r--", "rwx------")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(loose));
      assertThatThrownBy(() -> DevTokens.loadOrCreate(dataDir))
          .as(loose)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("chmod 600");
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    assertThat(DevTokens.loadOrCreate(dataDir).users()).contains("alice");
  }

  @Test
  void aSymlinkedDevTokensFileIsRefused() throws IOException {
    Path elsewhere = tmp.resolve("elsewhere");
    Path real = DevTokens.loadOrCreate(elsewhere).file();
    Files.createDirectories(dataDir);
    Files.createSymbolicLink(dataDir.resolve(DevTokens.FILE_NAME), real);
    assertThatThrownBy(() -> DevTokens.loadOrCreate(dataDir))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theSqliteDatabaseAndItsWalAreCreatedOwnerOnly() throws Exception {
    Path file = dataDir.resolve("qinglong.db");
    try (HikariDataSource ds = SqliteDatabase.open(file)) {
      SqliteDatabase.migrate(ds);
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE IF NOT EXISTS probe (x INTEGER)");
        st.execute("INSERT INTO probe VALUES (1)");
      }
      assertThat(mode(dataDir)).isEqualTo("rwx------");
      assertThat(mode(file)).isEqualTo("rw-------");
      for (String suffix : List.of("-wal", "-shm")) {
        Path side = dataDir.resolve("qinglong.db" + suffix);
        assertThat(side).exists();
        assertThat(mode(side)).as(suffix).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void artifactsAreStoredOwnerOnly() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1024);
    byte[] content = "artifact".getBytes(StandardCharsets.UTF_8);
    Sha256Digest digest = Sha256Digest.parse("d", HostileClientTest.digest(content));
    store.store(digest, new ByteArrayInputStream(content));
    Path stored = store.pathOf(digest);
    assertThat(mode(stored)).isEqualTo("rw-------");
    for (Path dir = stored.getParent(); !dir.equals(tmp); dir = dir.getParent()) {
      assertThat(mode(dir)).as(dir.toString()).isEqualTo("rwx------");
    }
    assertThat(mode(FileArtifactStore.artifactsDir(dataDir).resolve("storage-id")))
        .isEqualTo("rw-------");
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }
}
