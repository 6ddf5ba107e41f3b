package dev.kairos.engine.internal;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link MisfireRule#decide}, which every timetable fire goes through: on time, a fixed-rate job
 * far behind (a day of 1 s fires: arithmetic), and a cron job behind by an hour and by a day (a
 * walk over cron successors, twice: to count the missed fires and to find the newest).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class MisfireRuleBenchmark {
  private static final ZoneId ZONE = ZoneId.of("Europe/Berlin");
  private final Instant now = Instant.parse("2026-03-04T12:00:00Z");
  private final Timetable everySecond =
      Timetables.of(JobSpec.named("rate").handler("h").fixedRate(Duration.ofSeconds(1)));
  private final Timetable everyMinute =
      Timetables.of(JobSpec.named("cron").handler("h").cron("0 * * * * ?", ZONE));
  private final Misfire fireOnce = Misfire.fireOnce();
  private final Misfire catchUp5 = Misfire.catchUp(5);
  private final Misfire catchUpAll = Misfire.catchUp();

  @Benchmark
  public MisfireRule.Decision fixedRate_onTime() {
    return MisfireRule.decide(everySecond, now.minusMillis(3), now, fireOnce);
  }

  @Benchmark
  public MisfireRule.Decision fixedRate_dayBehind_fireOnce() {
    return MisfireRule.decide(everySecond, now.minus(Duration.ofDays(1)), now, fireOnce);
  }

  @Benchmark
  public MisfireRule.Decision fixedRate_dayBehind_catchUp5() {
    return MisfireRule.decide(everySecond, now.minus(Duration.ofDays(1)), now, catchUp5);
  }

  @Benchmark
  public MisfireRule.Decision fixedRate_dayBehind_catchUpAll() {
    return MisfireRule.decide(everySecond, now.minus(Duration.ofDays(1)), now, catchUpAll);
  }

  @Benchmark
  public MisfireRule.Decision cronEveryMinute_hourBehind_fireOnce() {
    return MisfireRule.decide(everyMinute, now.minus(Duration.ofHours(1)), now, fireOnce);
  }

  @Benchmark
  public MisfireRule.Decision cronEveryMinute_dayBehind_fireOnce() {
    return MisfireRule.decide(everyMinute, now.minus(Duration.ofDays(1)), now, fireOnce);
  }
}
