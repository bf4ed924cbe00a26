package dev.qinglong.app.console;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The system's headless Chromium and chromedriver (Debian packages {@code chromium} and {@code
 * chromium-driver}, installed by {@code .ci/run}). Both paths are given to Selenium explicitly, so
 * Selenium Manager never looks for, or downloads, a browser or a driver. A missing binary fails the
 * test with the command that installs it: the browser tests never skip.
 */
final class SystemChromium {
  private SystemChromium() {}

  static Path binary(String env, String fallback) {
    String configured = System.getenv(env);
    Path path = Path.of(configured == null || configured.isBlank() ? fallback : configured);
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException(
          path
              + " is missing: the console's browser tests need the system Chromium. Install it with"
              + " `apt-get install -y chromium chromium-driver` (or point "
              + env
              + " at the binary).");
    }
    return path;
  }

  /** A fresh headless browser with its own profile directory under {@code profile}. */
  static ChromeDriver start(Path profile) {
    Path chromium = binary("QINGLONG_CHROMIUM", "/usr/bin/chromium");
    Path driver = binary("QINGLONG_CHROMEDRIVER", "/usr/bin/chromedriver");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    options.addArguments(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1366,900",
            "--user-data-dir=" + profile.toAbsolutePath()));
    // The browser's console log, so a test can see a refused script, style or connection.
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(driver.toFile())
            .usingAnyFreePort()
            .withTimeout(Duration.ofSeconds(30))
            .build();
    return new ChromeDriver(service, options);
  }
}
