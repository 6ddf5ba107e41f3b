package dev.kairos.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class of the test class path, whose standard output the test reads
 * line by line, and which the test can kill with SIGKILL ({@link Process#destroyForcibly()} on
 * Linux): a crash the child cannot clean up after.
 */
public final class ChildJvm implements AutoCloseable {
  private static final String EOF = "\u0000eof";

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ChildJvm(Process process) {
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the child died; EOF below tells the test
              } finally {
                lines.add(EOF);
              }
            },
            "child-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code main} with the test's class path; its standard error goes to {@code log}.
   *
   * @param main the class whose {@code main} the child runs
   * @param log the file the child's standard error goes to
   * @param args the child's arguments
   * @return the started child
   * @throws java.io.IOException if the JVM cannot be started
   */
  public static ChildJvm start(Class<?> main, Path log, String... args) throws IOException {
    return start(List.of(), main, log, args);
  }

  /**
   * Like {@link #start(Class, Path, String...)}, with these JVM options.
   *
   * @param jvmOptions options for the child JVM, before the class name
   * @param main the class whose {@code main} the child runs
   * @param log the file the child's standard error goes to
   * @param args the child's arguments
   * @return the started child
   * @throws java.io.IOException if the JVM cannot be started
   */
  public static ChildJvm start(List<String> jvmOptions, Class<?> main, Path log, String... args)
      throws IOException {
    return start(Path.of(System.getProperty("java.home")), jvmOptions, main, log, args);
  }

  /**
   * Like {@link #start(List, Class, Path, String...)}, on the JDK or JRE in {@code javaHome}.
   *
   * @param javaHome the Java installation whose {@code bin/java} runs the child
   * @param jvmOptions options for the child JVM, before the class name
   * @param main the class whose {@code main} the child runs
   * @param log the file the child's standard error goes to
   * @param args the child's arguments
   * @return the started child
   * @throws java.io.IOException if the JVM cannot be started
   */
  public static ChildJvm start(
      Path javaHome, List<String> jvmOptions, Class<?> main, Path log, String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(javaHome.resolve("bin").resolve("java").toString());
    command.add("-Xmx256m");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return new ChildJvm(new ProcessBuilder(command).redirectError(log.toFile()).start());
  }

  /**
   * The first line starting with {@code prefix}, waiting at most {@code timeout}; fails if the
   * child exits or the time runs out first.
   *
   * @param prefix the start of the awaited line
   * @param timeout the longest wait
   * @return the whole line
   * @throws InterruptedException if interrupted while waiting
   */
  public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (; ; ) {
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new AssertionError(
            "child printed no line starting with '" + prefix + "' in " + timeout);
      }
      if (line.equals(EOF)) {
        throw new AssertionError(
            "child exited (" + process.waitFor() + ") before printing '" + prefix + "'");
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Drops the lines the child printed so far, so a later {@link #awaitLine} sees only new ones. */
  public void discardPendingLines() {
    List<String> pending = new ArrayList<>();
    lines.drainTo(pending);
    if (pending.contains(EOF)) {
      lines.add(EOF);
    }
  }

  /**
   * True while the child runs.
   *
   * @return whether the child process is alive
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Writes a line to the child's standard input.
   *
   * @param line the line, without its line break
   * @throws java.io.IOException if the child's input is closed
   */
  public void send(String line) throws IOException {
    var in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * Waits up to {@code timeout} for the child to exit; returns its exit code.
   *
   * @param timeout the longest wait
   * @return the exit code
   * @throws InterruptedException if interrupted while waiting
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("child still running after " + timeout);
    }
    return process.exitValue();
  }

  /**
   * Kills the child with SIGKILL and waits for it to be gone.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("child survived SIGKILL for 30 s");
    }
  }

  /** Kills the child if it still runs. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
