package dev.qinglong.app;

import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;

/** The recovery sweep on SQLite. */
class SqliteStepRunRecoverySweepTest extends StepRunRecoverySweepContract {
  @Override
  TestApp start(Path dataDir, Map<String, String> properties) {
    return TestApp.start(dataDir, properties);
  }

  @Override
  AiInspector inspector(TestApp app) {
    return AiInspector.sqlite(app.dataDir());
  }

  @Override
  String sweepIndexDefinition(AiInspector ai) {
    return ai.queryOne(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
        "model_step_runs_running_sweep");
  }
}
