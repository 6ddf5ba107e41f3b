package dev.kairos.engine.internal;

import dev.kairos.JobSpec;
import dev.kairos.Schedule;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * The jitter of a job's timetable fires, as a pure function of (key, scheduled fire time, bound):
 * every instance of a cluster and every restart computes the same due time for the same fire.
 *
 * <p>The offset is a 64-bit mix (SplitMix64's finalizer) of the key's UTF-8 bytes and the fire's
 * epoch second and nanosecond, reduced modulo the bound in nanoseconds. It depends on nothing the
 * JVM chooses (no {@code hashCode} of an object, no random seed), so it is stable across versions
 * and machines; changing this function moves the due time of every jittered fire, so don't.
 */
public final class Jitter {
  private Jitter() {}

  /**
   * When the fire scheduled at {@code fire} is due: {@code fire} plus the spec's offset, or {@code
   * fire} itself for a spec without jitter or with a one-shot schedule. Null stays null.
   *
   * @param spec a validated spec
   * @param fire the scheduled fire time, or null
   * @return the due time, or null
   */
  public static Instant due(JobSpec spec, Instant fire) {
    if (fire == null || spec.jitter().isEmpty() || spec.schedule() instanceof Schedule.Once) {
      return fire;
    }
    return Timetables.plus(fire, offset(spec.key(), fire, spec.jitter().get()));
  }

  /**
   * The offset of one fire, in {@code [0, bound)}; zero for a zero bound.
   *
   * @param key the job's key
   * @param fire the scheduled fire time
   * @param bound the exclusive upper bound, not negative
   * @return the offset
   */
  public static Duration offset(String key, Instant fire, Duration bound) {
    long nanos = saturatedNanos(bound);
    if (nanos <= 0) {
      return Duration.ZERO;
    }
    long h = 0x9E3779B97F4A7C15L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h = mix(h ^ (b & 0xff));
    }
    h = mix(h ^ fire.getEpochSecond());
    h = mix(h ^ fire.getNano());
    return Duration.ofNanos(Math.floorMod(h, nanos));
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** SplitMix64's finalizer: every input bit affects every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
