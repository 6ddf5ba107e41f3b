package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link RunGate}: a job's backfill run and its regular run never overlap on one instance. */
class BackfillRunGateTest {

  /** Waits (bounded) until the thread blocks in the gate. */
  private static void awaitBlocked(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(t.getState()).isEqualTo(Thread.State.WAITING);
  }

  @Test
  void backfill_waitsForTheRunningRegularRunOfTheSameKey() throws Exception {
    RunGate gate = new RunGate();
    CountDownLatch regularInside = new CountDownLatch(1);
    CountDownLatch releaseRegular = new CountDownLatch(1);
    AtomicBoolean regularDone = new AtomicBoolean();
    AtomicBoolean overlapped = new AtomicBoolean();
    Thread regular =
        new Thread(
            () -> {
              try {
                gate.regular(
                    "k",
                    () -> {
                      regularInside.countDown();
                      releaseRegular.await();
                      regularDone.set(true);
                    });
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    regular.start();
    assertThat(regularInside.await(10, TimeUnit.SECONDS)).isTrue();
    CountDownLatch backfillRan = new CountDownLatch(1);
    Thread backfill =
        new Thread(
            () -> {
              try {
                gate.backfill(
                    "k",
                    () -> {
                      overlapped.set(!regularDone.get());
                      backfillRan.countDown();
                    });
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    backfill.start();

    awaitBlocked(backfill);
    assertThat(backfillRan.getCount()).isEqualTo(1);
    releaseRegular.countDown();

    assertThat(backfillRan.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(overlapped).isFalse();
    regular.join(10_000);
    backfill.join(10_000);
  }

  @Test
  void regular_waitsForTheBackfillRun_otherKeysDoNot() throws Exception {
    RunGate gate = new RunGate();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread backfill =
        new Thread(
            () -> {
              try {
                gate.backfill(
                    "k",
                    () -> {
                      inside.countDown();
                      release.await();
                    });
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    backfill.start();
    assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
    AtomicBoolean otherRan = new AtomicBoolean();
    gate.regular("other", () -> otherRan.set(true)); // another key passes at once
    assertThat(otherRan).isTrue();
    CountDownLatch regularRan = new CountDownLatch(1);
    Thread regular =
        new Thread(
            () -> {
              try {
                gate.regular("k", regularRan::countDown);
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    regular.start();

    awaitBlocked(regular);
    assertThat(regularRan.getCount()).isEqualTo(1);
    release.countDown();

    assertThat(regularRan.await(10, TimeUnit.SECONDS)).isTrue();
    backfill.join(10_000);
    regular.join(10_000);
  }
}
