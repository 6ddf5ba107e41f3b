package dev.kairos.engine.internal;

import dev.kairos.JobSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A cron job's next fire time, {@code Timetables.of(spec).successor(t)} in Europe/Berlin, from
 * random instants over a year (so daylight-saving changes are crossed): a simple daily expression,
 * a complex working-hours one, and one with an n-th weekday. {@code build} measures parsing the
 * expression into a timetable, which the engine does once per job definition.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class CronBenchmark {
  private static final ZoneId ZONE = ZoneId.of("Europe/Berlin");
  private static final int INSTANTS = 1024;

  @Param({"0 0 2 * * ?", "0 0/15 9-17 ? * MON-FRI", "0 0/15 9-17 ? * MON#2"})
  public String expression;

  private JobSpec spec;
  private Timetable timetable;
  private final Instant[] from = new Instant[INSTANTS];
  private int next;

  @Setup
  public void setUp() {
    spec = JobSpec.named("cron").handler("h").cron(expression, ZONE);
    timetable = Timetables.of(spec);
    SplittableRandom random = new SplittableRandom(7);
    Instant origin = Instant.parse("2026-01-01T00:00:00Z");
    long yearSeconds = Duration.ofDays(365).toSeconds();
    for (int i = 0; i < INSTANTS; i++) {
      from[i] = origin.plusSeconds(random.nextLong(yearSeconds));
    }
  }

  @Benchmark
  public Optional<Instant> successor() {
    return timetable.successor(from[next++ & (INSTANTS - 1)]);
  }

  @Benchmark
  public Timetable build() {
    return Timetables.of(spec);
  }
}
