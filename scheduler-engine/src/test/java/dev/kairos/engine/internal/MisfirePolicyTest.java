package dev.kairos.engine.internal;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Misfire policies end to end over the step API: a fixed-rate job whose first run overruns by
 * several periods, far beyond the threshold.
 */
class MisfirePolicyTest {

  /** 100 ms period from t=100 ms; the first run takes 1000 ms; threshold 250 ms. */
  private static Harness overrun(Misfire policy) {
    AtomicInteger n = new AtomicInteger();
    Harness[] h = new Harness[1];
    h[0] =
        new Harness(
            ctx -> {
              if (n.incrementAndGet() == 1) {
                h[0].clock.advance(ofMillis(1000));
              }
            });
    h[0].scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(ofMillis(100))
            .initialDelay(ofMillis(100))
            .misfire(policy.threshold(ofMillis(250))));
    h[0].runUntil(Harness.T0.plusMillis(1300));
    return h[0];
  }

  @Test
  void catchUp_runsEveryMissedFireBackToBack() {
    Harness h = overrun(Misfire.catchUp());

    // Run 1 ends at 1100; fires 200..1100 (10 of them) run at 1100, then 1200 and 1300.
    assertThat(h.fires())
        .containsExactly(
            100L, 200L, 300L, 400L, 500L, 600L, 700L, 800L, 900L, 1000L, 1100L, 1200L, 1300L);
    assertThat(h.starts().subList(1, 11)).containsOnly(1100L);
    assertThat(h.runs.get(1).missedFires()).isEqualTo(1);
  }

  @Test
  void catchUpN_makesUpOnlyTheNewestN() {
    Harness h = overrun(Misfire.catchUp(3));

    assertThat(h.fires()).containsExactly(100L, 900L, 1000L, 1100L, 1200L, 1300L);
    assertThat(h.starts()).containsExactly(100L, 1100L, 1100L, 1100L, 1200L, 1300L);
  }

  @Test
  void fireOnce_runsOnceForAllMissedFiresThenResumes() {
    Harness h = overrun(Misfire.fireOnce());

    assertThat(h.fires()).containsExactly(100L, 1100L, 1200L, 1300L);
    assertThat(h.starts()).containsExactly(100L, 1100L, 1200L, 1300L);
    assertThat(h.runs.get(1).missedFires()).isEqualTo(10);
    assertThat(h.runs.get(2).missedFires()).isZero();
  }

  @Test
  void skip_runsNoneOfTheMissedFires() {
    Harness h = overrun(Misfire.skip());

    assertThat(h.fires()).containsExactly(100L, 1200L, 1300L);
  }

  @Test
  void withinThreshold_lateFiresRunNormallyWhateverThePolicy() {
    AtomicInteger n = new AtomicInteger();
    Harness[] h = new Harness[1];
    h[0] =
        new Harness(
            ctx -> {
              if (n.incrementAndGet() == 1) {
                h[0].clock.advance(
                    ofMillis(150)); // overruns by 50 ms, within the 1 s default threshold
              }
            });
    h[0].scheduler.schedule(
        JobSpec.named("j").handler("h").fixedRate(ofMillis(100)).misfire(Misfire.skip()));

    h[0].runUntil(Harness.T0.plusMillis(300));

    assertThat(h[0].fires()).containsExactly(0L, 100L, 200L, 300L);
    assertThat(h[0].runs).allSatisfy(c -> assertThat(c.missedFires()).isZero());
  }

  @Test
  void resumeAfterPause_missedFiresFollowThePolicy() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(Duration.ofMinutes(1))
            .misfire(Misfire.fireOnce()));
    h.runUntil(Harness.T0);
    h.scheduler.pause("j");
    h.runUntil(Harness.T0.plus(Duration.ofMinutes(10)).plusSeconds(30));

    h.scheduler.resume("j");
    h.runUntil(Harness.T0.plus(Duration.ofMinutes(11)));

    assertThat(h.fires()).containsExactly(0L, 600_000L, 660_000L);
    assertThat(h.runs.get(1).missedFires()).isEqualTo(10);
  }

  @Test
  void catchUpWithin_makesUpOnlyTheFiresInsideTheWindow() {
    Harness h = overrun(Misfire.catchUp().within(ofMillis(350)));

    // Judged at 1100: the window reaches back to 750, so 200..700 are dropped.
    assertThat(h.fires()).containsExactly(100L, 800L, 900L, 1000L, 1100L, 1200L, 1300L);
    assertThat(h.starts()).containsExactly(100L, 1100L, 1100L, 1100L, 1100L, 1200L, 1300L);
  }

  /**
   * A job held for a year (here: paused) under {@code catchUp().within(3 h)} makes up the last
   * three hours, not a year; the dropped fires are reported to listeners, oldest first.
   */
  @Test
  void catchUpWithin_afterAYear_replaysOnlyTheWindow_andReportsTheDroppedFires() {
    List<String> dropped = new CopyOnWriteArrayList<>();
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void firesDropped(String key, Instant oldest, long n, Misfire policy) {
            dropped.add(key + " " + Harness.ms(oldest) + " " + n + " " + policy);
          }
        };
    Misfire policy = Misfire.catchUp().within(Duration.ofHours(3));
    Harness h = new Harness(new InMemoryStore(), Kairos.builder().listener(listener), ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("j").handler("h").fixedRate(Duration.ofHours(1)).misfire(policy));
    h.runUntil(Harness.T0);
    h.scheduler.pause("j");
    Instant yearLater = Harness.T0.plus(Duration.ofDays(365)).plus(Duration.ofMinutes(30));
    h.runUntil(yearLater);

    h.scheduler.resume("j");
    h.runUntil(yearLater);

    long hour = Duration.ofHours(1).toMillis();
    long lastFire = Duration.ofDays(365).toMillis();
    assertThat(h.fires()).containsExactly(0L, lastFire - 2 * hour, lastFire - hour, lastFire);
    assertThat(dropped).containsExactly("j " + hour + " " + (365 * 24 - 3) + " " + policy);
  }
}
