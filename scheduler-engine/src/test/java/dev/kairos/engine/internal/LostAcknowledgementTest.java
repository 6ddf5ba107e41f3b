package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.JobSpec;
import dev.kairos.JobState;
import dev.kairos.StoreException;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.RunResult;
import dev.kairos.spi.Upsert;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An API call whose store write committed but whose answer was lost (a connection dropped after the
 * commit; H2's automatic ANALYZE failing inside COMMIT) throws, and the engine cannot know whether
 * the change was made. It must not keep firing from what it knew before: the heap is made to agree
 * with the store (read again), so the job fires as the store says, neither skipped nor fired
 * against it. Before, the heap kept its old view: a job created that way never fired until a
 * restart (calling {@code schedule} again found it unchanged and did not queue it either), a job
 * resumed that way stayed silent, one paused that way fired on.
 */
class LostAcknowledgementTest {
  private final AnswerLosingStore store = new AnswerLosingStore();
  private final Harness h = new Harness(store, ctx -> {});

  private static JobSpec every10s(String key) {
    return JobSpec.named(key).handler("h").fixedRate(Duration.ofSeconds(10));
  }

  @Test
  void schedule_committedButAnswerLost_throws_andTheJobStillFires() {
    store.loseNextAnswer = true;

    assertThatThrownBy(() -> h.scheduler.schedule(every10s("a")))
        .isInstanceOf(StoreException.class);
    assertThat(h.scheduler.job("a")).isPresent(); // the commit went through
    h.scheduler.schedule(every10s("a")); // the caller's retry: unchanged

    h.runUntil(Harness.T0.plusSeconds(25));
    assertThat(h.fires()).containsExactly(0L, 10_000L, 20_000L);
  }

  @Test
  void resume_committedButAnswerLost_throws_andTheJobFiresAgain() {
    h.scheduler.schedule(every10s("a"));
    h.scheduler.pause("a");
    store.loseNextAnswer = true;

    assertThatThrownBy(() -> h.scheduler.resume("a")).isInstanceOf(StoreException.class);
    assertThat(h.scheduler.job("a").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

    h.runUntil(Harness.T0.plusSeconds(25));
    assertThat(h.fires()).containsExactly(0L, 10_000L, 20_000L); // its first fire was due
  }

  @Test
  void pause_committedButAnswerLost_throws_andTheJobFiresNoMore() {
    h.scheduler.schedule(every10s("a"));
    h.runUntil(Harness.T0.plusSeconds(5));
    store.loseNextAnswer = true;

    assertThatThrownBy(() -> h.scheduler.pause("a")).isInstanceOf(StoreException.class);
    assertThat(h.scheduler.job("a").orElseThrow().state()).isEqualTo(JobState.PAUSED);

    h.runUntil(Harness.T0.plusSeconds(25));
    assertThat(h.fires()).containsExactly(0L);
  }

  @Test
  void triggerNow_committedButAnswerLost_throws_andTheTriggerRuns() {
    h.scheduler.schedule(every10s("a"));
    h.runUntil(Harness.T0.plusSeconds(5));
    store.loseNextAnswer = true;

    assertThatThrownBy(() -> h.scheduler.triggerNow("a")).isInstanceOf(StoreException.class);

    h.runUntil(Harness.T0.plusSeconds(6));
    assertThat(h.fires()).containsExactly(0L, 5_000L);
  }

  /**
   * The store cannot even be read right after the lost answer: the key is read again at the
   * caller's next change (here the retried {@code schedule}, which finds it unchanged).
   */
  @Test
  void schedule_answerLostAndReadBackFails_settledByTheNextCall() {
    store.loseNextAnswer = true;
    store.failingReads = 1;

    assertThatThrownBy(() -> h.scheduler.schedule(every10s("a")))
        .isInstanceOf(StoreException.class);
    h.scheduler.schedule(every10s("a"));

    h.runUntil(Harness.T0.plusSeconds(25));
    assertThat(h.fires()).containsExactly(0L, 10_000L, 20_000L);
  }

  /** ... or, if the caller does nothing, at the next window load (every 2.5 min by default). */
  @Test
  void schedule_answerLostAndReadBackFails_settledByTheNextWindowLoad() {
    store.loseNextAnswer = true;
    store.failingReads = 1;

    assertThatThrownBy(() -> h.scheduler.schedule(every10s("a")))
        .isInstanceOf(StoreException.class);

    h.runUntil(Harness.T0.plusSeconds(200));
    assertThat(h.fires()).isNotEmpty().last().isEqualTo(200_000L);
    assertThat(h.fires().get(0)).isLessThanOrEqualTo(150_000L);
  }

  /**
   * A change during a run that failed before its commit leaves the row as the run found it: read
   * back, that row is not remembered for the run's end, where it would queue the fire that ran
   * again if the write-back found no row.
   */
  @Test
  void changeFailsUncommittedDuringARun_theFireIsNotRunAgain() {
    AnswerLosingStore s = new AnswerLosingStore();
    Harness[] self = new Harness[1];
    self[0] =
        new Harness(
            s,
            ctx -> {
              if (self[0].runs.size() > 1) {
                return; // the fire run again (before the fix): no more failures
              }
              s.failNextWrite = true;
              s.noRowForWriteBacks = true;
              assertThatThrownBy(() -> self[0].scheduler.pause("a"))
                  .isInstanceOf(StoreException.class);
            });
    self[0].scheduler.schedule(every10s("a"));

    self[0].runUntil(Harness.T0.plusSeconds(25));
    assertThat(self[0].fires()).containsExactly(0L);
  }

  /**
   * An in-memory store whose next {@code upsert} or {@code replace}, once armed, commits and then
   * throws, as a JDBC store does when the connection drops after the commit.
   */
  private static final class AnswerLosingStore extends ForwardingStore {
    volatile boolean loseNextAnswer;
    volatile int failingReads;
    volatile boolean failNextWrite;
    volatile boolean noRowForWriteBacks;

    private <T> T answer(T committed) {
      if (loseNextAnswer) {
        loseNextAnswer = false;
        throw new StoreException("connection reset after the commit");
      }
      return committed;
    }

    @Override
    public Upsert upsert(JobRecord fresh) {
      return answer(super.upsert(fresh));
    }

    @Override
    public Optional<JobRecord> replace(JobRecord updated, long expectedVersion) {
      if (failNextWrite) {
        failNextWrite = false;
        throw new StoreException("connection refused");
      }
      return answer(super.replace(updated, expectedVersion));
    }

    @Override
    public Optional<JobRecord> runFinished(RunResult result) {
      return noRowForWriteBacks ? Optional.empty() : super.runFinished(result);
    }

    @Override
    public Optional<JobRecord> find(String key) {
      if (failingReads > 0) {
        failingReads--;
        throw new StoreException("connection refused");
      }
      return super.find(key);
    }
  }
}
