package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.BusinessCalendar;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link SlotAccountingPropertyTest} with a calendar: an hourly job excluding weekends, a few
 * random holidays and (sometimes) the night. For random misfire and overlap policies, run lengths
 * and outages, every hourly slot is accounted for exactly once in the history: a run (with the
 * fires it coalesced), a policy's {@link RunOutcome#SKIPPED} entry (fires of the calendar's
 * timetable, consecutive), or the calendar's {@code SKIPPED} entry (the excluded slots of a
 * stretch, consecutive among the excluded ones).
 */
class CalendarSlotAccountingPropertyTest {
  private static final Duration HOUR = Duration.ofHours(1);

  @Test
  void everySlotIsAccountedForExactlyOnce_calendarDropsIncluded() {
    long seed = System.nanoTime();
    for (int trial = 0; trial < 60; trial++) {
      check(new SplittableRandom(seed + trial), "seed " + seed + " trial " + trial);
    }
  }

  private static void check(SplittableRandom random, String what) {
    Misfire misfire =
        SlotAccountingPropertyTest.misfire(random, Duration.ofHours(1), Duration.ofHours(50))
            .threshold(Duration.ofMinutes(random.nextInt(0, 240)));
    Overlap overlap =
        List.of(Overlap.forbid(), Overlap.bufferOne(), Overlap.skip(), Overlap.allow(2))
            .get(random.nextInt(4));
    BusinessCalendar calendar = BusinessCalendar.in(ZoneOffset.UTC).weekdays();
    for (int i = 0; i < 3; i++) {
      calendar = calendar.excluding(LocalDate.of(2026, 1, 5).plusDays(random.nextInt(0, 28)));
    }
    if (random.nextBoolean()) {
      calendar = calendar.between(LocalTime.of(7, 0), LocalTime.of(19, 0));
    }
    Harness[] h = new Harness[1];
    InMemoryStore store = new InMemoryStore(100_000, true);
    h[0] =
        new Harness(
            store,
            Kairos.builder(),
            ctx -> {
              int p = random.nextInt(100);
              long minutes =
                  p < 70 ? random.nextInt(0, 20) : p < 95 ? random.nextInt(20, 150) : 300;
              h[0].clock.advance(Duration.ofMinutes(minutes));
            });
    h[0].scheduler.putCalendar("cal", calendar);
    h[0].scheduler.schedule(
        JobSpec.named("j")
            .handler("h")
            .fixedRate(HOUR)
            .startAt(Harness.T0)
            .excluding("cal")
            .misfire(misfire)
            .overlap(overlap));
    Instant t = Harness.T0;
    for (int step = 0; step < 20; step++) {
      t = t.plus(Duration.ofMinutes(random.nextInt(60, 1500)));
      h[0].runUntil(t);
      t = h[0].clock.now().isAfter(t) ? h[0].clock.now() : t;
      if (random.nextInt(4) == 0) { // an outage: time passes, nothing runs
        t = t.plus(Duration.ofMinutes(random.nextInt(60, 4000)));
        h[0].clock.set(t);
      }
    }
    h[0].runUntil(t);

    Timetable base =
        Timetables.of(JobSpec.named("j").handler("h").fixedRate(HOUR).startAt(Harness.T0));
    final BusinessCalendar cal = calendar;
    Timetable tt = new CalendarTimetable(base, cal, dev.kairos.CalendarPolicy.SKIP);
    String policies = what + ", " + misfire + ", overlap " + overlap + ", " + calendar;
    TreeMap<Instant, String> covered = new TreeMap<>();
    List<RunRecord> history = new ArrayList<>(store.history("j", 100_000));
    assertThat(history).as(policies).isNotEmpty();
    for (RunRecord r : history) {
      String by = r.outcome() + "@" + r.scheduledFireTime() + " " + r.error();
      List<Instant> slots = new ArrayList<>();
      if (r.outcome() == RunOutcome.SKIPPED && r.error().endsWith("by calendar 'cal'")) {
        Optional<Instant> s = Optional.of(r.scheduledFireTime());
        while (slots.size() < r.missedFires()) {
          if (!cal.allows(s.orElseThrow())) {
            slots.add(s.get());
          }
          s = base.successor(s.get());
        }
      } else if (r.outcome() == RunOutcome.SKIPPED) {
        Optional<Instant> s = Optional.of(r.scheduledFireTime());
        for (int i = 0; i < r.missedFires(); i++) {
          slots.add(s.orElseThrow());
          s = tt.successor(s.get());
        }
      } else {
        // a run, for its fire and the fires it coalesced before it (fireOnce)
        slots.add(r.scheduledFireTime());
        Instant s = r.scheduledFireTime();
        for (int i = 1; i < r.missedFires(); i++) {
          s = previousFire(cal, s);
          slots.add(s);
        }
      }
      for (Instant slot : slots) {
        String before = covered.put(slot, by);
        assertThat(before).as("%s: slot %s by %s and %s", policies, slot, before, by).isNull();
      }
    }
    // Slots before the first allowed one precede the job's first fire: nothing accounts for them.
    Instant first = tt.first(Harness.T0).orElseThrow();
    Instant last = covered.lastKey();
    assertThat(covered.firstKey()).as(policies).isEqualTo(first);
    long expected = Duration.between(first, last).dividedBy(HOUR) + 1;
    assertThat(covered)
        .as("%s: every hourly slot up to %s once", policies, last)
        .hasSize((int) expected);
  }

  /** The fire before {@code fire}: the allowed base slot before it (hourly from T0). */
  private static Instant previousFire(BusinessCalendar cal, Instant fire) {
    for (Instant s = fire.minus(HOUR); !s.isBefore(Harness.T0); s = s.minus(HOUR)) {
      if (cal.allows(s)) {
        return s;
      }
    }
    throw new AssertionError("no fire before " + fire);
  }
}
