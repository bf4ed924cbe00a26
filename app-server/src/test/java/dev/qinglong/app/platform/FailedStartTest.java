package dev.qinglong.app.platform;

import static dev.qinglong.app.platform.FailedStarts.action;
import static dev.qinglong.app.platform.FailedStarts.description;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.testkit.AppProcess;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Starts that cannot succeed (docs/operations.md#when-it-does-not-start), each in this JVM with its
 * whole console output captured: one "APPLICATION FAILED TO START" report naming the property and
 * what to change, no stack trace. {@code FailedStartIT} runs some of them as a real {@code java
 * -jar} process and checks its exit code too.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailedStartTest {
  @TempDir Path dataDir;

  private String failedStart(CapturedOutput output, Map<String, String> properties) {
    return FailedStarts.failedStart(output, dataDir, properties);
  }

  @Test
  void postgresWithoutAUrl(CapturedOutput output) {
    String out = failedStart(output, Map.of("qinglong.store", "postgres"));
    assertThat(description(out))
        .isEqualTo("qinglong.store=postgres needs qinglong.postgres.url, which is not set");
    assertThat(action(out))
        .startsWith("Set qinglong.postgres.url to the JDBC URL of the database")
        .contains("or use qinglong.store=sqlite");
  }

  @Test
  void postgresMigratingWithoutTheOwnerLogin(CapturedOutput output) {
    String out =
        failedStart(
            output,
            Map.of(
                "qinglong.store", "postgres",
                "qinglong.postgres.url", "jdbc:postgresql://127.0.0.1:5432/qinglong"));
    assertThat(description(out))
        .contains("qinglong.postgres.migrate=true")
        .contains("qinglong.postgres.username is not set");
    assertThat(action(out))
        .contains("Set qinglong.postgres.username and qinglong.postgres.password")
        .contains("qinglong.postgres.migrate=false");
  }

  @Test
  void anUnknownStoreListsTheValidValuesAsTheyAreTyped(CapturedOutput output) {
    String out = failedStart(output, Map.of("qinglong.store", "postgresql"));
    assertThat(description(out))
        .startsWith("qinglong.store=postgresql (")
        .endsWith("is not a valid value; valid values: sqlite, postgres");
    assertThat(action(out)).startsWith("Set qinglong.store to one of sqlite, postgres");
    assertThat(out).doesNotContain("POSTGRES").doesNotContain("SQLITE");
  }

  @Test
  void anEnumWithADashIsListedWithTheDash(CapturedOutput output) {
    String out = failedStart(output, Map.of("qinglong.auth.mode", "tokens"));
    assertThat(description(out)).endsWith("valid values: dev-tokens, jwt");
  }

  @Test
  void aWindowOutOfBoundsNamesThePropertyTheValueAndTheBound(CapturedOutput output) {
    String out = failedStart(output, Map.of("qinglong.management-quota.window", "10m"));
    assertThat(description(out))
        .startsWith("qinglong.management-quota.window=10m (")
        .contains("must be between 1s and 5m");
    assertThat(action(out)).startsWith("Change qinglong.management-quota.window to a value");
    assertThat(out).doesNotContain("WithinBounds").doesNotContain("Value: \"false\"");
  }

  @Test
  void aLimitOutOfBoundsNamesThePropertyTheValueAndTheBound(CapturedOutput output) {
    String out = failedStart(output, Map.of("qinglong.management-quota.limits.inspect", "1001"));
    assertThat(description(out))
        .startsWith("qinglong.management-quota.limits.inspect=1001 (")
        .endsWith("must be less than or equal to 1000");
  }

  @Test
  void aDatabaseThatDoesNotAnswer(CapturedOutput output) throws IOException {
    int closed = AppProcess.freePort(); // nothing listens there
    String out =
        failedStart(
            output,
            Map.of(
                "qinglong.store", "postgres",
                "qinglong.postgres.url",
                    "jdbc:postgresql://127.0.0.1:" + closed + "/qinglong?password=url-secret",
                "qinglong.postgres.username", "qinglong_owner"));
    assertThat(description(out))
        .startsWith(
            "The PostgreSQL database jdbc:postgresql://127.0.0.1:"
                + closed
                + "/qinglong (qinglong.postgres.url) cannot be reached: Connection to 127.0.0.1:"
                + closed
                + " refused");
    assertThat(action(out)).startsWith("Start PostgreSQL or make it reachable from this host");
    assertThat(out).doesNotContain("url-secret");
  }

  @Test
  void aWrongOwnerPasswordNamesTheLoginAndItsPasswordProperty(CapturedOutput output)
      throws Exception {
    try (RefusingPostgres pg = new RefusingPostgres()) {
      String out =
          failedStart(
              output,
              Map.of(
                  "qinglong.store", "postgres",
                  "qinglong.postgres.url", pg.url(),
                  "qinglong.postgres.username", "qinglong_owner",
                  "qinglong.postgres.password", "owner-secret"));
      assertThat(description(out))
          .contains("refused the login qinglong_owner (qinglong.postgres.username)")
          .endsWith("password authentication failed for user \"qinglong_owner\"");
      assertThat(action(out))
          .startsWith("Set the password of qinglong_owner in qinglong.postgres.password");
      assertThat(out).doesNotContain("owner-secret");
    }
  }

  @Test
  void aWrongRolePasswordNamesTheRolesPasswordProperty(CapturedOutput output) throws Exception {
    try (RefusingPostgres pg = new RefusingPostgres()) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("qinglong.store", "postgres");
      p.put("qinglong.postgres.url", pg.url());
      p.put("qinglong.postgres.migrate", "false");
      p.put("qinglong.role", "reader");
      p.put("qinglong.postgres.roles.reader.password", "reader-secret");
      String out = failedStart(output, p);
      assertThat(description(out))
          .contains("refused the login ql3_reader (qinglong.postgres.roles.reader.username)");
      assertThat(action(out))
          .startsWith("Set the password of ql3_reader in qinglong.postgres.roles.reader.password");
      assertThat(out).doesNotContain("reader-secret");
    }
  }

  @Test
  void theApiPortInUseNamesServerPort(CapturedOutput output) throws IOException {
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = busy.getLocalPort();
      String out = failedStart(output, Map.of("server.port", Integer.toString(port)));
      assertThat(description(out))
          .isEqualTo(
              "Port "
                  + port
                  + " (server.port="
                  + port
                  + ", the API) is already in use by another"
                  + " process");
      assertThat(action(out)).endsWith("or set server.port to a free port.");
    }
  }

  @Test
  void theManagementPortInUseNamesManagementServerPort(CapturedOutput output) throws IOException {
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = busy.getLocalPort();
      String out = failedStart(output, Map.of("management.server.port", Integer.toString(port)));
      assertThat(description(out))
          .startsWith("Port " + port + " (management.server.port=" + port + ",");
      assertThat(action(out)).endsWith("or set management.server.port to a free port.");
    }
  }

  @Test
  void devTokensOnANetworkAddress(CapturedOutput output) {
    String out = failedStart(output, Map.of("server.address", "0.0.0.0"));
    assertThat(description(out))
        .isEqualTo("qinglong.auth.mode=dev-tokens refuses to listen on server.address=0.0.0.0");
    assertThat(action(out))
        .isEqualTo(
            "Bind to 127.0.0.1 (server.address), use qinglong.auth.mode=jwt, or set"
                + " qinglong.auth.dev-tokens-on-network=true.");
  }

  /**
   * A server on 127.0.0.1 that speaks just enough of the PostgreSQL protocol to refuse every login
   * as a server with password authentication does: no TLS, then an ErrorResponse with SQLSTATE
   * 28P01 for the user the client named. (The test database trusts every local login.)
   */
  static final class RefusingPostgres implements AutoCloseable {
    private static final int SSL_REQUEST = 80877103;
    private static final int GSS_REQUEST = 80877104;
    private static final Pattern USER = Pattern.compile("user\u0000([^\u0000]*)\u0000");

    private final ServerSocket server;
    private final Thread acceptor;

    RefusingPostgres() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(this::serve, "refusing-postgres");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String url() {
      return "jdbc:postgresql://127.0.0.1:" + server.getLocalPort() + "/qinglong";
    }

    private void serve() {
      while (!server.isClosed()) {
        try (Socket s = server.accept()) {
          refuse(s);
        } catch (IOException e) {
          // Closed, or the client went away: take the next one.
        }
      }
    }

    private static void refuse(Socket s) throws IOException {
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        int length = in.readInt();
        int code = in.readInt();
        byte[] rest = new byte[length - 8];
        in.readFully(rest);
        if (code == SSL_REQUEST || code == GSS_REQUEST) {
          out.write('N');
          out.flush();
          continue;
        }
        Matcher m = USER.matcher(new String(rest, StandardCharsets.UTF_8));
        String user = m.find() ? m.group(1) : "";
        ByteArrayOutputStream fields = new ByteArrayOutputStream();
        field(fields, 'S', "FATAL");
        field(fields, 'V', "FATAL");
        field(fields, 'C', "28P01");
        field(fields, 'M', "password authentication failed for user \"" + user + "\"");
        fields.write(0);
        byte[] body = fields.toByteArray();
        out.write('E');
        int n = body.length + 4;
        out.write(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        out.write(body);
        out.flush();
        return;
      }
    }

    private static void field(ByteArrayOutputStream b, char type, String value) {
      b.write(type);
      b.writeBytes(value.getBytes(StandardCharsets.UTF_8));
      b.write(0);
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
