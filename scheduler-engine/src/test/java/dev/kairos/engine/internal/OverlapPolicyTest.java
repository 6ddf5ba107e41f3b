package dev.kairos.engine.internal;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.RunOutcome;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Overlap policies end to end over the step API: a 100 ms fixed-rate job from t=100 ms whose first
 * run takes 350 ms (fires 200, 300 and 400 come due during it), under a misfire policy generous
 * enough (threshold 1 s, catch-up) that only the overlap policy drops anything.
 */
class OverlapPolicyTest {
  private final List<String> dropped = new CopyOnWriteArrayList<>();

  private Harness overrun(Overlap policy) {
    AtomicInteger n = new AtomicInteger();
    Harness[] h = new Harness[1];
    SchedulerListener listener =
        new SchedulerListener() {
          @Override
          public void overlapDropped(String key, Instant oldest, long count, Overlap p) {
            dropped.add(key + " " + Harness.ms(oldest) + " x" + count + " " + p);
          }
        };
    h[0] =
        new Harness(
            new InMemoryStore(),
            Kairos.builder().listener(listener),
            ctx -> {
              if (n.incrementAndGet() == 1) {
                h[0].clock.advance(ofMillis(350));
              }
            });
    h[0].scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(ofMillis(100))
            .initialDelay(ofMillis(100))
            .misfire(Misfire.catchUp().threshold(ofMillis(1000)))
            .overlap(policy));
    h[0].runUntil(Harness.T0.plusMillis(700));
    return h[0];
  }

  @Test
  void forbid_everyFireThatCameDueWaitsAndRuns() {
    Harness h = overrun(Overlap.forbid());

    assertThat(h.fires()).containsExactly(100L, 200L, 300L, 400L, 500L, 600L, 700L);
    assertThat(h.starts()).containsExactly(100L, 450L, 450L, 450L, 500L, 600L, 700L);
    assertThat(dropped).isEmpty();
  }

  @Test
  void bufferOne_onlyTheNewestFireThatCameDueRuns() {
    Harness h = overrun(Overlap.bufferOne());

    assertThat(h.fires()).containsExactly(100L, 400L, 500L, 600L, 700L);
    assertThat(h.starts()).containsExactly(100L, 450L, 500L, 600L, 700L);
    assertThat(dropped).containsExactly("j 200 x2 bufferOne");
  }

  @Test
  void skip_fireThatCameDueAreDropped_nextIsTheFirstAfterTheRun() {
    Harness h = overrun(Overlap.skip());

    assertThat(h.fires()).containsExactly(100L, 500L, 600L, 700L);
    assertThat(h.starts()).containsExactly(100L, 500L, 600L, 700L);
    assertThat(dropped).containsExactly("j 200 x3 skip");
    assertThat(h.scheduler.history("j", 10))
        .filteredOn(r -> r.outcome() == RunOutcome.SKIPPED)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(Harness.ms(r.scheduledFireTime())).isEqualTo(200L);
              assertThat(r.missedFires()).isEqualTo(3);
              assertThat(r.error())
                  .isEqualTo(
                      "skipped 3 fire(s) from 2026-01-05T00:00:00.200Z to"
                          + " 2026-01-05T00:00:00.400Z by overlap skip");
            });
  }

  @Test
  void skip_aRunWithinThePeriod_dropsNothing() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(ofMillis(100))
            .initialDelay(ofMillis(100))
            .overlap(Overlap.skip()));

    h.runUntil(Harness.T0.plusMillis(500));

    assertThat(h.fires()).containsExactly(100L, 200L, 300L, 400L, 500L);
  }

  @Test
  void storedAndListed() {
    Harness h = new Harness(ctx -> {});
    h.scheduler.schedule(
        JobSpec.named("j").handler("h").fixedRate(ofMillis(100)).overlap(Overlap.bufferOne()));

    assertThat(h.store.find("j").orElseThrow().spec().overlap()).isEqualTo(Overlap.bufferOne());
    assertThat(JobSpec.named("j").overlap()).isEqualTo(Overlap.forbid());
  }

  @Test
  void nullPolicy_refusedWithTheKey() {
    Harness h = new Harness(ctx -> {});

    assertThatThrownBy(
            () ->
                h.scheduler.schedule(
                    JobSpec.named("j").handler("h").fixedRate(ofMillis(100)).overlap(null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'j'")
        .hasMessageContaining("overlap policy is null");
    assertThat(h.store.find("j")).isEmpty();
  }
}
