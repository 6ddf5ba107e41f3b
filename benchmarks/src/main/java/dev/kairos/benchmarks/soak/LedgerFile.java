package dev.kairos.benchmarks.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * An append-only ledger file. Each line goes to the kernel in one {@code write(2)} before {@link
 * #append} returns, with no buffer in the process, so a SIGKILL loses nothing that was appended (a
 * machine crash could: the soak kills processes, not machines).
 */
final class LedgerFile implements AutoCloseable {
  private final FileChannel channel;

  LedgerFile(Path file) {
    try {
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The real clock in epoch microseconds. */
  static long nowMicros() {
    return micros(Instant.now());
  }

  static long micros(Instant t) {
    return TimeUnit.SECONDS.toMicros(t.getEpochSecond()) + t.getNano() / 1_000;
  }

  /** Appends one line made of {@code fields} joined by tabs. */
  void append(Object... fields) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < fields.length; i++) {
      sb.append(i == 0 ? "" : "\t").append(fields[i]);
    }
    ByteBuffer buf = ByteBuffer.wrap(sb.append('\n').toString().getBytes(StandardCharsets.UTF_8));
    synchronized (this) {
      try {
        while (buf.hasRemaining()) {
          channel.write(buf);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
