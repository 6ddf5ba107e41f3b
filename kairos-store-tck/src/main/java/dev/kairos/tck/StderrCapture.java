package dev.kairos.tck;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies what is written to {@code System.err} (where slf4j-simple logs) while open, so a test can
 * count log lines. Restores the stream on close.
 */
public final class StderrCapture implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

  /** Starts capturing standard error. */
  public StderrCapture() {
    OutputStream tee =
        new OutputStream() {
          @Override
          public void write(int b) {
            original.write(b);
            synchronized (copy) {
              copy.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            synchronized (copy) {
              copy.write(b, off, len);
            }
          }
        };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /**
   * Lines captured so far that contain {@code text}.
   *
   * @param text the text to look for
   * @return how many lines contain it
   */
  public long lines(String text) {
    String all;
    synchronized (copy) {
      all = copy.toString(StandardCharsets.UTF_8);
    }
    return all.lines().filter(l -> l.contains(text)).count();
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
