package dev.qinglong.app.console;

import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in the system's headless Chromium ({@link SystemChromium}) against one running app:
 * what every console browser test does the same way, signing in and out, switching views, typing
 * into a field, reading the browser's log and writing screenshots to {@code
 * target/console-screenshots/}.
 */
final class ConsoleBrowser implements AutoCloseable {
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  final ChromeDriver driver;
  final WebDriverWait wait;
  private final TestApp app;

  private ConsoleBrowser(TestApp app, ChromeDriver driver) {
    this.app = app;
    this.driver = driver;
    this.wait = new WebDriverWait(driver, Duration.ofSeconds(15));
    wait.ignoring(StaleElementReferenceException.class);
  }

  /** A fresh browser (its profile under {@code profile}) for the console of {@code app}. */
  static ConsoleBrowser start(TestApp app, Path profile) {
    try {
      Files.createDirectories(SCREENSHOTS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ConsoleBrowser(app, SystemChromium.start(profile));
  }

  String consoleUrl() {
    return "http://127.0.0.1:" + app.http.port() + "/console/";
  }

  /** Opens the console and signs out whoever is signed in: the sign-in form shows. */
  void signOutIfSignedIn() {
    driver.get(consoleUrl());
    WebElement out = driver.findElement(By.id("sign-out"));
    if (out.isDisplayed()) {
      out.click();
    }
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
  }

  /** Signs {@code user} in to Project demo, once the header names them. */
  void signIn(String user) {
    signOutIfSignedIn();
    driver.findElement(By.id("token")).sendKeys(app.token(user));
    WebElement project = driver.findElement(By.id("project"));
    project.clear();
    project.sendKeys("demo");
    driver.findElement(By.cssSelector("#sign-in-form button[type=submit]")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("who"), user));
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("who-project"), "demo"));
  }

  /** Opens a view by its tab. */
  void tab(String view) {
    driver.findElement(By.cssSelector("button.tab[data-view='" + view + "']")).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("view-" + view)));
  }

  /** Replaces the text of an input once it can be typed into. */
  void type(String id, String text) {
    WebElement input = wait.until(ExpectedConditions.elementToBeClickable(By.id(id)));
    input.clear();
    input.sendKeys(text);
  }

  /** The browser's console log so far. */
  List<String> logMessages() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .map(LogEntry::getMessage)
        .toList();
  }

  /** Writes the window as it is to {@code target/console-screenshots/<name>.png}. */
  Path screenshot(String name) {
    Path file = driver.getScreenshotAs(OutputType.FILE).toPath();
    Path target = SCREENSHOTS.resolve(name + ".png");
    try {
      Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return target;
  }

  /** Whether a list shows an id or digest (shortened, its whole value the code's data-id). */
  static boolean shows(WebElement container, String id) {
    return !container.findElements(By.cssSelector("code[data-id='" + id + "']")).isEmpty();
  }

  /** Closes the browser, then the app (either may be null: a start that failed half way). */
  static void closeAll(ConsoleBrowser console, TestApp app) {
    if (console != null) {
      console.close();
    }
    if (app != null) {
      app.close();
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
