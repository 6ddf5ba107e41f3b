package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.BusinessCalendar;
import dev.kairos.JobSpec;
import dev.kairos.StoreException;
import java.time.Duration;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * The reads that follow the store's open at start (interrupted backfill slots, calendars) are
 * retried like the open itself: a connection lost between them does not make {@code start()} throw,
 * half started (issue #9's connection cuts found it: the calendars' read failed and start threw at
 * once).
 */
class StartupReadsRetryTest {
  @Test
  void calendarsReadFailsOnceAfterTheOpen_startRetries_andTheSchedulerRuns() {
    FailingReads store = new FailingReads();
    store.calendarFailures = 2;
    Harness h = new Harness(store, ctx -> {}); // opens the scheduler

    assertThat(store.opens).isEqualTo(1); // opened once, the reads tried again
    assertThat(store.calendarReads).isGreaterThanOrEqualTo(3);
    h.scheduler.schedule(JobSpec.named("a").handler("h").fixedRate(Duration.ofSeconds(1)));
    h.runUntil(Harness.T0.plusSeconds(2));
    assertThat(h.fires()).containsExactly(0L, 1_000L, 2_000L);
  }

  /** A store whose calendars cannot be read the first times. */
  private static final class FailingReads extends ForwardingStore {
    int opens;
    int calendarReads;
    int calendarFailures;

    @Override
    public void open() {
      opens++;
    }

    @Override
    public SortedMap<String, BusinessCalendar> calendars() {
      calendarReads++;
      if (calendarFailures > 0) {
        calendarFailures--;
        throw new StoreException("connection reset");
      }
      return delegate.calendars();
    }
  }
}
