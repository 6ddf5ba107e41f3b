package dev.kairos.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** A job that never returns cannot keep the JVM alive after close(), nor close() waiting. */
class StuckJobTest {

  @Test
  void stuckJob_closeReturnsWithinGracePlusInterruptWait_reportsTheKeyOnce_andTheJvmExits()
      throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                StuckJobChild.class.getName())
            .redirectErrorStream(true)
            .start();
    String output;
    try {
      // 200 ms grace + 5 s interrupt wait, with room for a slow, shared machine
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child JVM exited").isTrue();
      output = read(child.getInputStream());
    } finally {
      child.destroyForcibly();
    }

    assertThat(child.exitValue()).as(output).isZero();
    Matcher closed = Pattern.compile("closed after (\\d+) ms").matcher(output);
    assertThat(closed.find()).as(output).isTrue();
    assertThat(Long.parseLong(closed.group(1))).isBetween(5_000L, 5_200L + 3_000L);
    assertThat(output.lines().filter(l -> l.contains("[never-returns] still running")).toList())
        .as(output)
        .hasSize(1);
  }

  @Test
  void keepAliveHoldsTheJvm_workersAreDaemonsNamedAfterTheInstance_allEndAtClose() {
    Scheduler s =
        Kairos.builder()
            .store(new InMemoryStore())
            .instanceId("keepalive-test")
            .handler("h", ctx -> {})
            .build();
    s.start();
    try {
      assertThat(threads("kairos-keepalive-keepalive-test"))
          .singleElement()
          .matches(t -> !t.isDaemon(), "non-daemon");
      assertThat(threads("kairos-worker-keepalive-test-")) // named after their instance
          .isNotEmpty()
          .allMatch(Thread::isDaemon);
    } finally {
      s.close();
    }
    org.awaitility.Awaitility.await()
        .until(() -> threads("kairos-keepalive-keepalive-test").isEmpty());
  }

  private static List<Thread> threads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
        .toList();
  }

  private static String read(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }
}
