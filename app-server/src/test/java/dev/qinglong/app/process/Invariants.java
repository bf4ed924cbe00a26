package dev.qinglong.app.process;

import dev.qinglong.app.process.MixedTraffic.Sent;
import dev.qinglong.core.kernel.Sha256Digest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The invariants a crash must not break, each checked in SQL against the store's tables (and the
 * artifact directory), with what the clients recorded for the exact counts. Each check counts the
 * rows (or ids, files) it examined and lists every violation; a run passes with zero violations.
 */
final class Invariants {
  enum Dialect {
    POSTGRES,
    SQLITE
  }

  /** One named invariant: how many rows/ids it examined and what broke it. */
  record Check(String name, long checked, List<String> violations) {}

  private static final Map<String, String> OPERATION_OF_KIND =
      Map.of(
          "upload", "artifact.upload",
          "propose", "plugin-package.propose",
          "decide", "plugin-package.decide",
          "inspect", "plugin-package.inspect");

  private final Dialect dialect;
  private final Map<String, Integer> limits;
  private final long windowMs;
  private final List<Check> checks = new ArrayList<>();

  /**
   * @param limits management-quota limit per operation name ({@code plugin-package.propose}, …)
   * @param windowMs the management-quota window
   */
  Invariants(Dialect dialect, Map<String, Integer> limits, long windowMs) {
    this.dialect = dialect;
    this.limits = limits;
    this.windowMs = windowMs;
  }

  List<Check> checks() {
    return List.copyOf(checks);
  }

  long violationCount() {
    return checks.stream().mapToLong(c -> c.violations().size()).sum();
  }

  long checkedCount() {
    return checks.stream().mapToLong(Check::checked).sum();
  }

  String report() {
    StringBuilder b = new StringBuilder();
    for (Check c : checks) {
      b.append(c.name())
          .append(": checked ")
          .append(c.checked())
          .append(", violations ")
          .append(c.violations().size());
      c.violations().stream().limit(20).forEach(v -> b.append("\n    ").append(v));
      b.append('\n');
    }
    return b.toString();
  }

  void add(String name, long checked, List<String> violations) {
    checks.add(new Check(name, checked, List.copyOf(violations)));
  }

  private String t(String table) {
    return dialect == Dialect.POSTGRES ? "qinglong." + table : table;
  }

  private String receiptsLength() {
    return dialect == Dialect.POSTGRES
        ? "jsonb_array_length(receipt_ids)"
        : "json_array_length(receipt_ids)";
  }

  /** (bucket key, receipt id) of every receipt: a receipt is {"id","d"}. */
  private String receiptRows() {
    String buckets = t("plugin_package_management_quota_buckets");
    return dialect == Dialect.POSTGRES
        ? "SELECT b.subject_id AS s, b.operation AS o, b.window_started_at_ms AS w,"
            + " e ->> 'id' AS rid"
            + " FROM "
            + buckets
            + " b CROSS JOIN LATERAL jsonb_array_elements(b.receipt_ids) e"
        : "SELECT b.subject_id AS s, b.operation AS o, b.window_started_at_ms AS w,"
            + " json_extract(j.value, '$.id') AS rid"
            + " FROM "
            + buckets
            + " b, json_each(b.receipt_ids) j";
  }

  // ---- the checks -------------------------------------------------------------------------------

  /** Every SQL check; {@code sent} is what the clients recorded. */
  void checkStore(Connection c, List<Sent> sent) throws SQLException {
    managementQuota(c, sent);
    governance(c, sent);
    modelQuota(c, sent);
  }

  private void managementQuota(Connection c, List<Sent> sent) throws SQLException {
    String buckets = t("plugin_package_management_quota_buckets");
    long rows = count(c, "SELECT count(*) FROM " + buckets);
    add(
        "management-quota: bucket count = number of receipts",
        rows,
        strings(
            c,
            "SELECT subject_id || ' ' || operation || ' count=' || consumed_count FROM "
                + buckets
                + " WHERE consumed_count <> "
                + receiptsLength()));
    StringBuilder limitCase = new StringBuilder("CASE operation");
    limits.forEach((op, n) -> limitCase.append(" WHEN '").append(op).append("' THEN ").append(n));
    limitCase.append(" ELSE 1000 END");
    add(
        "management-quota: bucket count <= limit",
        rows,
        strings(
            c,
            "SELECT subject_id || ' ' || operation || ' count=' || consumed_count FROM "
                + buckets
                + " WHERE consumed_count > "
                + limitCase));
    add(
        "management-quota: receipt ids distinct in a bucket",
        rows,
        strings(
            c,
            "SELECT r.s || ' ' || r.o FROM ("
                + receiptRows()
                + ") r GROUP BY r.s, r.o HAVING count(*) <> count(DISTINCT r.rid)"));

    // Exact counts: receipts of this window vs what the clients were told.
    Map<String, Long> windowStart = new HashMap<>();
    Map<String, Integer> receiptCount = new HashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(receiptRows())) {
      while (rs.next()) {
        String bucket = rs.getString(1) + " " + rs.getString(2);
        windowStart.put(bucket, rs.getLong(3));
        receiptCount.merge(bucket + " " + rs.getString(4), 1, Integer::sum);
      }
    }
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT subject_id, operation, window_started_at_ms FROM " + buckets)) {
      while (rs.next()) {
        windowStart.put(rs.getString(1) + " " + rs.getString(2), rs.getLong(3));
      }
    }
    Map<String, Long> firstOfBucket = new HashMap<>();
    for (Sent x : sent) {
      String op = OPERATION_OF_KIND.get(x.kind());
      if (op != null) {
        firstOfBucket.merge(x.user() + " " + op, x.firstSentMs(), Math::min);
      }
    }
    List<String> violations = new ArrayList<>();
    long checked = 0;
    Map<String, Sent> byReceipt = new HashMap<>();
    for (Sent x : sent) {
      String op = OPERATION_OF_KIND.get(x.kind());
      if (op == null) {
        continue;
      }
      String bucket = x.user() + " " + op;
      byReceipt.put(bucket + " " + x.id(), x);
      Long start = windowStart.get(bucket);
      // The bucket's first window holds every request of the run; once a window rolled over,
      // only requests sent entirely inside the current one can be compared with it (1 s margin
      // for the database clock): an expired window forgot its receipts.
      boolean firstWindow = start != null && start < firstOfBucket.get(bucket) + windowMs - 1000;
      if (start == null || (!firstWindow && x.firstSentMs() < start + 1000)) {
        if (start == null && x.ok()) {
          violations.add(x.kind() + " " + x.id() + " answered " + x.status() + ", no bucket");
        }
        continue;
      }
      checked++;
      int n = receiptCount.getOrDefault(bucket + " " + x.id(), 0);
      if (x.ok() && n != 1) {
        violations.add(x.kind() + " " + x.id() + " answered " + x.status() + ", counted " + n);
      } else if (x.status() != 0 && !x.ok() && n != 0) {
        violations.add(x.kind() + " " + x.id() + " answered " + x.status() + ", counted " + n);
      }
    }
    for (Map.Entry<String, Integer> e : receiptCount.entrySet()) {
      Sent x = byReceipt.get(e.getKey());
      if (x == null) {
        violations.add("receipt " + e.getKey() + " was never sent by a client");
      }
    }
    add("management-quota: every id answered 2xx counted exactly once", checked, violations);
  }

  private void governance(Connection c, List<Sent> sent) throws SQLException {
    String proposals = t("plugin_package_proposals");
    String approvals = t("plugin_package_approvals");
    long rows = count(c, "SELECT count(*) FROM " + proposals);
    add(
        "governance: one proposal per actionRef",
        rows,
        strings(
            c,
            "SELECT action_ref FROM "
                + proposals
                + " GROUP BY project_id, action_ref HAVING count(*) > 1"));
    add(
        "governance: no proposal published twice",
        rows,
        strings(
            c,
            "SELECT package_name || ' ' || package_version FROM "
                + proposals
                + " WHERE state = 'published'"
                + " GROUP BY project_id, package_name, package_version HAVING count(*) > 1"));
    add(
        "governance: published only after a four-eyes approve",
        rows,
        strings(
            c,
            "SELECT p.action_ref FROM "
                + proposals
                + " p LEFT JOIN "
                + approvals
                + " a ON a.project_id = p.project_id AND a.approval_id = p.approval_id"
                + " WHERE p.state = 'published' AND (a.approval_id IS NULL"
                + " OR a.state <> 'approved' OR a.decision <> 'approve'"
                + " OR a.decided_by = p.proposed_by OR p.artifact_digest IS NULL)"));
    add(
        "governance: an approved approval has its required distinct approves, never the proposer's",
        count(c, "SELECT count(*) FROM " + approvals + " WHERE state = 'approved'"),
        strings(
            c,
            "SELECT a.approval_id FROM "
                + approvals
                + " a WHERE a.state = 'approved' AND (SELECT count(DISTINCT d.decided_by) FROM "
                + t("plugin_package_approval_decisions")
                + " d WHERE d.project_id = a.project_id AND d.approval_id = a.approval_id"
                + " AND d.decision = 'approve' AND d.decided_by <> a.proposed_by)"
                + " < a.required_approvals"));
    add(
        "governance: a decided approval has exactly one decision",
        count(c, "SELECT count(*) FROM " + approvals),
        strings(
            c,
            "SELECT approval_id FROM "
                + approvals
                + " WHERE (state = 'pending') <> (decision_id IS NULL)"
                + " OR (state = 'pending') <> (decided_by IS NULL)"));

    Map<String, Integer> refs = idCounts(c, "SELECT action_ref FROM " + proposals);
    Map<String, Integer> decisions =
        idCounts(c, "SELECT decision_id FROM " + approvals + " WHERE decision_id IS NOT NULL");
    List<String> violations = new ArrayList<>();
    long checked = 0;
    for (Sent x : sent) {
      Map<String, Integer> rowsOf =
          switch (x.kind()) {
            case "propose" -> refs;
            case "decide" -> decisions;
            default -> null;
          };
      if (rowsOf == null) {
        continue;
      }
      checked++;
      int n = rowsOf.getOrDefault(x.id(), 0);
      if (x.ok() ? n != 1 : (x.status() != 0 && n != 0)) {
        violations.add(x.kind() + " " + x.id() + " answered " + x.status() + ", rows " + n);
      }
    }
    add(
        "governance: every proposal/decision answered 2xx stored exactly once",
        checked,
        violations);
  }

  private void modelQuota(Connection c, List<Sent> sent) throws SQLException {
    String runs = t("model_step_runs");
    String res = t("model_invocation_reservations");
    String starts = t("model_invocation_starts");
    String comps = t("model_invocation_completions");
    String ledger = t("model_usage_ledger");
    String sets = t("model_invocation_settlements");
    add(
        "model-quota: each running StepRun has exactly one reservation",
        count(c, "SELECT count(*) FROM " + runs + " WHERE state = 'running'"),
        strings(
            c,
            "SELECT s.step_run_id FROM "
                + runs
                + " s WHERE s.state = 'running' AND (SELECT count(*) FROM "
                + res
                + " r WHERE r.project_id = s.project_id AND r.step_run_id = s.step_run_id"
                + " AND r.invocation_id = s.invocation_id) <> 1"));
    add(
        "model-quota: a reservation belongs to an admitted StepRun (never a ready one)",
        count(c, "SELECT count(*) FROM " + res),
        strings(
            c,
            "SELECT r.invocation_id FROM "
                + res
                + " r LEFT JOIN "
                + runs
                + " s ON s.project_id = r.project_id AND s.step_run_id = r.step_run_id"
                + " LEFT JOIN "
                + starts
                + " st ON st.project_id = r.project_id AND st.invocation_id = r.invocation_id"
                + " WHERE s.step_run_id IS NULL OR s.state = 'ready'"
                + " OR s.invocation_id <> r.invocation_id OR st.invocation_id IS NULL"));
    long settlements = count(c, "SELECT count(*) FROM " + sets);
    List<String> orphan = new ArrayList<>();
    orphan.addAll(
        strings(
            c,
            "SELECT 'settlement without completion ' || s.invocation_id FROM "
                + sets
                + " s LEFT JOIN "
                + comps
                + " x ON x.project_id = s.project_id AND x.invocation_id = s.invocation_id"
                + " WHERE x.invocation_id IS NULL"));
    orphan.addAll(
        strings(
            c,
            "SELECT 'completion without settlement ' || x.invocation_id FROM "
                + comps
                + " x LEFT JOIN "
                + sets
                + " s ON s.project_id = x.project_id AND s.invocation_id = x.invocation_id"
                + " WHERE s.invocation_id IS NULL"));
    orphan.addAll(
        strings(
            c,
            "SELECT 'ledger entry without settlement ' || l.invocation_id FROM "
                + ledger
                + " l LEFT JOIN "
                + sets
                + " s ON s.project_id = l.project_id AND s.invocation_id = l.invocation_id"
                + " WHERE s.invocation_id IS NULL"));
    orphan.addAll(
        strings(
            c,
            "SELECT 'settlement without ledger entry ' || s.invocation_id FROM "
                + sets
                + " s LEFT JOIN "
                + ledger
                + " l ON l.project_id = s.project_id AND l.invocation_id = s.invocation_id"
                + " WHERE l.invocation_id IS NULL"));
    orphan.addAll(
        strings(
            c,
            "SELECT 'StepRun ' || r.step_run_id || ' is ' || r.state || ' with settlement='"
                + " || CASE WHEN s.invocation_id IS NULL THEN 'no' ELSE 'yes' END FROM "
                + runs
                + " r LEFT JOIN "
                + sets
                + " s ON s.project_id = r.project_id AND s.invocation_id = r.invocation_id"
                + " WHERE (r.state IN ('succeeded', 'failed', 'unknown')) <> (s.invocation_id"
                + " IS NOT NULL)"));
    add("model-quota: no settlement without completion (and the reverse)", settlements, orphan);

    String windows = " GROUP BY project_id, window_start_ms, window_ms";
    List<String> agg = new ArrayList<>();
    agg.addAll(
        strings(
            c,
            "SELECT 'reservations of window ' || window_start_ms || ': n=' || count(*)"
                + " || ' seq=' || max(window_seq) || ' head invocations=' ||"
                + " max(window_invocations) FROM "
                + res
                + windows
                + " HAVING count(*) <> max(window_seq) OR count(*) <> max(window_invocations)"
                + " OR sum(reserved_tokens) <> max(window_reserved_tokens)"));
    agg.addAll(
        strings(
            c,
            "SELECT 'settlements of window ' || window_start_ms || ': n=' || count(*) FROM "
                + sets
                + windows
                + " HAVING count(*) <> max(window_settle_seq)"
                + " OR sum(released_tokens) <> max(window_released_tokens)"));
    agg.addAll(
        strings(
            c,
            "SELECT 'settlement ' || s.invocation_id || ' settled+released <> reserved' FROM "
                + sets
                + " s JOIN "
                + res
                + " r ON r.project_id = s.project_id AND r.invocation_id = s.invocation_id"
                + " WHERE s.settled_tokens + s.released_tokens <> r.reserved_tokens"
                + " OR s.window_start_ms <> r.window_start_ms"));
    agg.addAll(
        strings(
            c,
            "SELECT 'ledger of window ' || r.window_start_ms || ' sums ' ||"
                + " sum(coalesce(l.total_tokens, r.reserved_tokens)) || ', settlements '"
                + " || sum(s.settled_tokens) FROM "
                + ledger
                + " l JOIN "
                + res
                + " r ON r.project_id = l.project_id AND r.invocation_id = l.invocation_id JOIN "
                + sets
                + " s ON s.project_id = l.project_id AND s.invocation_id = l.invocation_id"
                + " GROUP BY r.project_id, r.window_start_ms, r.window_ms"
                + " HAVING sum(coalesce(l.total_tokens, r.reserved_tokens)) <>"
                + " sum(s.settled_tokens)"));
    // No over-admission: what a window holds now (settled where settled, reserved otherwise)
    // never exceeds its budget.
    agg.addAll(
        strings(
            c,
            "SELECT 'window ' || r.window_start_ms || ' holds ' || count(*) || ' invocations, '"
                + " || sum(coalesce(s.settled_tokens, r.reserved_tokens)) || ' tokens' FROM "
                + res
                + " r LEFT JOIN "
                + sets
                + " s ON s.project_id = r.project_id AND s.invocation_id = r.invocation_id"
                + " GROUP BY r.project_id, r.window_start_ms, r.window_ms"
                + " HAVING count(*) > max(r.budget_max_invocations)"
                + " OR sum(coalesce(s.settled_tokens, r.reserved_tokens)) >"
                + " max(r.budget_max_tokens)"));
    add(
        "model-quota: ledger and settlements equal the window aggregates, within budget",
        count(c, "SELECT count(*) FROM (SELECT 1 AS one FROM " + res + windows + ") w"),
        agg);

    Map<String, Integer> reservations = idCounts(c, "SELECT invocation_id FROM " + res);
    Map<String, Integer> completions = idCounts(c, "SELECT invocation_id FROM " + comps);
    Map<String, Integer> ledgerIds = idCounts(c, "SELECT invocation_id FROM " + ledger);
    Map<String, Integer> stepRuns = idCounts(c, "SELECT step_run_id FROM " + runs);
    List<String> violations = new ArrayList<>();
    long checked = 0;
    Map<String, Sent> completed = new HashMap<>();
    Map<String, Sent> admitted = new HashMap<>();
    for (Sent x : sent) {
      List<Map<String, Integer>> tables =
          switch (x.kind()) {
            case "steprun" -> List.of(stepRuns);
            case "admit" -> List.of(reservations);
            case "complete" -> List.of(completions, ledgerIds);
            default -> List.of();
          };
      if (x.kind().equals("complete")) {
        completed.put(x.id(), x);
      } else if (x.kind().equals("admit")) {
        admitted.put(x.id(), x);
      }
      for (Map<String, Integer> rowsOf : tables) {
        checked++;
        int n = rowsOf.getOrDefault(x.id(), 0);
        if (x.ok() ? n != 1 : (x.status() != 0 && n != 0)) {
          violations.add(x.kind() + " " + x.id() + " answered " + x.status() + ", rows " + n);
        }
      }
    }
    for (String inv : reservations.keySet()) {
      Sent a = admitted.get(inv);
      if (a == null || (a.status() != 0 && !a.ok())) {
        violations.add("reservation " + inv + " without an admission that could have made it");
      }
    }
    for (String inv : completions.keySet()) {
      Sent x = completed.get(inv);
      if (x == null || (x.status() != 0 && !x.ok())) {
        violations.add("completion " + inv + " without a request that could have made it");
      }
    }
    add(
        "model-quota: every admission/completion answered 2xx stored exactly once",
        checked,
        violations);
  }

  // ---- artifacts
  // ----------------------------------------------------------------------------------

  /**
   * No partial file is visible: every file under an artifact's final name hashes to that name (an
   * interrupted upload leaves at most a hidden {@code .upload-*.tmp}). Returns the temp files left.
   */
  long checkArtifactFiles(Path dataDir) throws IOException {
    Path root = dataDir.resolve("artifacts").resolve("sha256");
    List<String> violations = new ArrayList<>();
    long checked = 0;
    long temps = 0;
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
          String name = f.getFileName().toString();
          if (name.startsWith(".upload-")) {
            temps++;
            continue;
          }
          checked++;
          String hex = sha256Hex(f);
          if (!name.equals(hex)) {
            violations.add(f + " holds bytes hashing to " + hex);
          }
        }
      }
    }
    add("artifacts: every stored file is whole (hashes to its name)", checked, violations);
    return temps;
  }

  /**
   * Every published artifact is stored whole and a download of it matches its digest; {@code
   * download} answers whether a download matched.
   */
  void checkPublishedDownloads(Connection c, Path dataDir, Function<String, Boolean> download)
      throws Exception {
    List<String> digests =
        strings(
            c,
            "SELECT DISTINCT artifact_digest FROM "
                + t("plugin_package_proposals")
                + " WHERE state = 'published'");
    List<String> violations = new ArrayList<>();
    for (String d : digests) {
      Path f =
          dataDir
              .resolve("artifacts")
              .resolve("sha256")
              .resolve(d.substring(7, 9))
              .resolve(d.substring(7));
      if (!Files.isRegularFile(f)) {
        violations.add("published " + d + " is not stored");
      } else if (!download.apply(d)) {
        violations.add("published " + d + " did not download whole");
      }
    }
    add("artifacts: every published artifact downloads whole", digests.size(), violations);
  }

  static String sha256Hex(Path f) throws IOException {
    try (InputStream in = Files.newInputStream(f)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[65536];
      int n;
      while ((n = in.read(buf)) > 0) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String digestOf(byte[] b) {
    return Sha256Digest.of(b).value();
  }

  // ---- SQL helpers ------------------------------------------------------------------------------

  static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static List<String> strings(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static Map<String, Integer> idCounts(Connection c, String sql) throws SQLException {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String id : strings(c, sql)) {
      out.merge(id, 1, Integer::sum);
    }
    return out;
  }
}
