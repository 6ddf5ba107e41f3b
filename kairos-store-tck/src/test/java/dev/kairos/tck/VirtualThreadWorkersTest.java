package dev.kairos.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's promise that workers may be virtual threads ({@code threadFactory(Thread.ofVirtual()
 * .factory())} on Java 21+), kept on a real JDK of that version: {@link VirtualThreadChild} runs a
 * scheduler over an H2 file on it, with runs that block and a job raced by pause, resume and
 * trigger calls. Every run must be on a virtual thread, no fire may run twice and none of the
 * untouched jobs' fires may be missing.
 *
 * <p>The JDK: the system property {@code kairos.test.jdk21} (a Java home), else the newest of
 * version 21 or later under {@code /usr/lib/jvm}. Without one the test is skipped, saying so,
 * except in CI ({@code CI=true}), where it fails: the CI machine has one.
 */
class VirtualThreadWorkersTest {
  @TempDir Path dir;

  @Test
  void virtualThreadWorkers_runEveryFireOnce() throws Exception {
    Path jdk = modernJdk();
    try (ChildJvm child =
        ChildJvm.start(
            jdk,
            List.of(),
            VirtualThreadChild.class,
            dir.resolve("child.log"),
            "h2=" + dir.resolve("store"))) {
      String line = child.awaitLine("RESULT ", Duration.ofSeconds(90));
      assertThat(child.awaitExit(Duration.ofSeconds(30))).as("child exit code").isZero();
      Matcher m =
          Pattern.compile(
                  "RESULT runs=(\\d+) duplicates=(\\d+) missing=(\\d+) virtual=(\\d+)"
                      + " platform=(\\d+);.*")
              .matcher(line);
      assertThat(m.matches()).as(line).isTrue();
      System.out.println("on " + jdk + ": " + line);
      assertThat(Long.parseLong(m.group(2))).as("fires run twice: " + line).isZero();
      assertThat(Long.parseLong(m.group(3))).as("fires missing: " + line).isZero();
      assertThat(Long.parseLong(m.group(5))).as("runs on platform threads: " + line).isZero();
      // At least two of the three seconds' fires (a slow start may schedule the jobs after t0).
      assertThat(Long.parseLong(m.group(4)))
          .as("runs on virtual threads: " + line)
          .isGreaterThanOrEqualTo(
              (long) VirtualThreadChild.RATE_JOBS
                  * (VirtualThreadChild.SECONDS - 1)
                  * 1000
                  / VirtualThreadChild.PERIOD_MS);
    }
  }

  private static Path modernJdk() throws IOException {
    String given = System.getProperty("kairos.test.jdk21");
    Optional<Path> found =
        given != null ? Optional.of(Path.of(given)) : newestUnder(Path.of("/usr/lib/jvm"));
    if (found.isEmpty()) {
      String why = "no JDK 21 or later (set -Dkairos.test.jdk21=<java home>)";
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(why + "; CI must run this test");
      }
      Assumptions.abort("skipped: " + why);
    }
    return found.get();
  }

  /** The Java home of the newest feature version ≥ 21 under {@code root}, from its release file. */
  private static Optional<Path> newestUnder(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    Path best = null;
    int bestVersion = 20;
    try (Stream<Path> homes = Files.list(root)) {
      for (Path home : homes.toList()) {
        int v = featureVersion(home.resolve("release"));
        if (v > bestVersion && Files.isExecutable(home.resolve("bin").resolve("java"))) {
          best = home;
          bestVersion = v;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  private static int featureVersion(Path release) throws IOException {
    if (!Files.isRegularFile(release)) {
      return 0;
    }
    Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(release));
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }
}
