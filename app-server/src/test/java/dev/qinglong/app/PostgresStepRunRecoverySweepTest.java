package dev.qinglong.app;

import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.Map;

/** The recovery sweep on PostgreSQL (the sweep runs as {@code ql3_runtime}). */
class PostgresStepRunRecoverySweepTest extends StepRunRecoverySweepContract {
  private TestDatabase db;

  @Override
  TestApp start(Path dataDir, Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_sweep");
    return PgApps.start(db, dataDir, properties);
  }

  @Override
  AiInspector inspector(TestApp app) {
    return AiInspector.postgres(db.jdbcUrl(), db.username(), db.password());
  }

  @Override
  String sweepIndexDefinition(AiInspector ai) {
    return ai.queryOne(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'qinglong' AND indexname = ?",
        "model_step_runs_running_sweep");
  }
}
