package dev.qinglong.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The API viewer still works in a real headless Chromium under the console's
 * Content-Security-Policy: it loads the bundle, fetches the app's own OpenAPI document and renders
 * its operations; the policy refuses no script and no connection.
 */
class ApiViewerBrowserTest {
  @TempDir Path dir;

  @Test
  void theViewerRendersTheAppsDocumentUnderThePolicy() {
    try (TestApp app = TestApp.start(dir.resolve("data"))) {
      ChromeDriver browser = SystemChromium.start(dir.resolve("chromium-profile"));
      try {
        browser.get("http://127.0.0.1:" + app.http.port() + "/swagger-ui/");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".opblock")));
        assertThat(browser.getCurrentUrl()).endsWith("/swagger-ui/index.html");
        assertThat(browser.findElement(By.cssSelector(".info .title")).getText())
            .containsIgnoringCase("QingLong");
        assertThat(browser.findElements(By.cssSelector(".opblock"))).hasSizeGreaterThan(5);
        assertThat(browser.getPageSource()).doesNotContainIgnoringCase("petstore");
        List<String> log =
            browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .toList();
        // What the policy does refuse is decorative: the stylesheet's data: SVG icons (img-src).
        assertThat(log)
            .as("the policy refuses none of the viewer's scripts or connections: %s", log)
            .noneMatch(m -> m.contains("Refused to load the script"))
            .noneMatch(m -> m.contains("Refused to execute"))
            .noneMatch(m -> m.contains("Refused to connect"))
            .noneMatch(m -> m.contains("Refused to evaluate"));
      } finally {
        browser.quit();
      }
    }
  }
}
