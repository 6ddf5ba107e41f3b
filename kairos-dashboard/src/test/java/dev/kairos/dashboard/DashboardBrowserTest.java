package dev.kairos.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real browser: headless Chromium (Debian's {@code chromium} and {@code
 * chromium-driver}, which {@code .ci/run} installs) driven by Selenium. Skipped, saying why, when
 * they are missing, except under {@code CI=true}, where that is a failure. Screenshots go to {@code
 * target/screenshots} (never into the repository).
 */
class DashboardBrowserTest {
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path SCREENSHOTS = Path.of("target", "screenshots");

  private Fixture fixture;
  private KairosDashboard dashboard;
  private WebDriver browser;

  @BeforeEach
  void setUp() {
    boolean present = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
    if (!present && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(
          "CI=true but " + CHROMIUM + " or " + CHROMEDRIVER + " is missing: run .ci/run");
    }
    Assumptions.assumeTrue(
        present,
        "browser test skipped: install chromium and chromium-driver (apt-get install -y chromium"
            + " chromium-driver)");
    fixture = new Fixture();
    dashboard = KairosDashboard.start(fixture.scheduler, 0);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000");
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    browser = new ChromeDriver(service, options);
    browser.manage().timeouts().implicitlyWait(Duration.ofSeconds(5));
  }

  @AfterEach
  void tearDown() {
    if (browser != null) {
      browser.quit();
    }
    if (dashboard != null) {
      dashboard.close();
    }
    if (fixture != null) {
      fixture.close();
    }
  }

  /**
   * An operator's path: the job list, a job's page, pause (the page shows PAUSED), resume, trigger;
   * the run then appears in the history.
   */
  @Test
  void listJobPauseResumeTrigger_runAppearsInHistory() throws Exception {
    browser.get(dashboard.uri().toString());
    assertThat(browser.findElement(By.id("jobs")).getText())
        .contains("nightly-report", Fixture.XSS_KEY);
    screenshot("jobs");

    browser.findElement(By.linkText("purge a/b&c=d")).click();
    assertThat(browser.findElement(By.id("key")).getText()).isEqualTo("purge a/b&c=d");
    assertThat(browser.findElement(By.id("state")).getText()).isEqualTo("SCHEDULED");

    browser.findElement(By.id("pause")).click();
    assertThat(browser.findElement(By.tagName("h1")).getText()).startsWith("Pause job");
    browser.findElement(By.id("confirm")).click();
    assertThat(browser.findElement(By.id("state")).getText()).isEqualTo("PAUSED");
    assertThat(browser.findElement(By.id("done")).getText()).isEqualTo("Paused.");

    browser.findElement(By.id("resume")).click();
    browser.findElement(By.id("confirm")).click();
    assertThat(browser.findElement(By.id("state")).getText()).isEqualTo("SCHEDULED");

    browser.findElement(By.id("trigger")).click();
    browser.findElement(By.id("confirm")).click();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              browser.navigate().refresh();
              assertThat(browser.findElements(By.cssSelector("#history tr.run"))).hasSize(1);
            });
    assertThat(browser.findElement(By.cssSelector("#history tr.run")).getText())
        .contains("SUCCESS");
    assertThat(browser.findElements(By.cssSelector("#chart rect.run"))).hasSize(1);
    screenshot("job");
  }

  /** A key and an error text holding markup are shown as text: no script runs, no image loads. */
  @Test
  void xssInKeyAndError_isRenderedInert() throws Exception {
    fixture.scheduler.triggerNow(Fixture.XSS_KEY);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !fixture.scheduler.history(Fixture.XSS_KEY, 1).isEmpty());
    browser.get(dashboard.uri().toString());
    browser.findElement(By.linkText(Fixture.XSS_KEY)).click();
    assertThat(browser.findElement(By.id("key")).getText()).isEqualTo(Fixture.XSS_KEY);
    assertThat(browser.findElement(By.id("last-error")).getText()).contains(Fixture.XSS_ERROR);
    assertThat(browser.findElements(By.tagName("script"))).isEmpty();
    assertThat(browser.findElements(By.tagName("img"))).isEmpty();
    screenshot("xss");
  }

  private void screenshot(String name) throws Exception {
    Files.createDirectories(SCREENSHOTS);
    Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }
}
