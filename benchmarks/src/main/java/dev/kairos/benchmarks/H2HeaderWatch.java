package dev.kairos.benchmarks;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Samples a live H2 file from outside, every millisecond: does the chunk its store header names
 * still sit at the block the header gives? When it does not, a SIGKILL at that moment leaves a
 * header a plain open cannot follow, which {@code H2HeaderRepair} mends at open
 * (docs/RELIABILITY.md, stop 64). Run beside a soak without kills:
 *
 * <pre>
 * java -jar kairos-benchmarks.jar soak --store h2 --seconds 70 --kill-every 0 --dir D &amp;
 * java -cp kairos-benchmarks.jar dev.kairos.benchmarks.H2HeaderWatch D/h2/kairos.mv.db 60
 * </pre>
 *
 * It reads the header's text ({@code H:2,block:...,chunk:...}) and the chunk header at that block;
 * it prints the samples, how many found another chunk there, and in how many stretches.
 */
public final class H2HeaderWatch {
  private H2HeaderWatch() {}

  /** The comma-separated {@code key:value} fields of the first line of {@code b}. */
  static Map<String, String> fields(byte[] b) {
    String s = new String(b, StandardCharsets.ISO_8859_1);
    int end = s.indexOf('\n');
    if (end < 0) end = Math.min(s.length(), 400);
    Map<String, String> m = new HashMap<>();
    for (String kv : s.substring(0, end).split(",")) {
      int i = kv.indexOf(':');
      if (i > 0) m.put(kv.substring(0, i), kv.substring(i + 1));
    }
    return m;
  }

  /**
   * Samples the file {@code a[0]} for {@code a[1]} seconds and prints what it saw.
   *
   * @param a the file and the seconds
   * @throws Exception if the file cannot be read or the thread is interrupted
   */
  public static void main(String[] a) throws Exception {
    String file = a[0];
    long seconds = Long.parseLong(a[1]);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long samples = 0, mismatched = 0, unreadable = 0, runs = 0;
    boolean inRun = false;
    byte[] hb = new byte[4096];
    byte[] cb = new byte[512];
    while (System.nanoTime() < end) {
      try (RandomAccessFile f = new RandomAccessFile(file, "r")) {
        while (System.nanoTime() < end) {
          f.seek(0);
          f.readFully(hb);
          Map<String, String> h = fields(hb);
          String block = h.get("block"), chunk = h.get("chunk");
          if (block == null || chunk == null) {
            unreadable++;
            Thread.sleep(1);
            continue;
          }
          long pos = Long.parseLong(block, 16) * 4096;
          if (pos + cb.length > f.length()) {
            mismatched++;
            samples++;
            Thread.sleep(1);
            continue;
          }
          f.seek(pos);
          f.readFully(cb);
          Map<String, String> c = fields(cb);
          samples++;
          boolean bad = !chunk.equals(c.get("chunk"));
          if (bad) {
            mismatched++;
            if (!inRun) {
              runs++;
              inRun = true;
            }
          } else inRun = false;
          Thread.sleep(1);
        }
      } catch (java.io.FileNotFoundException | java.io.EOFException e) {
        Thread.sleep(10);
      }
    }
    System.out.printf(
        "samples %d, header chunk not at its block %d (%.4f%%) in %d stretches, unreadable %d%n",
        samples, mismatched, 100.0 * mismatched / Math.max(1, samples), runs, unreadable);
  }
}
