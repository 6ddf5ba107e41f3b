package dev.kairos.engine.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps a job's backfill run and its regular run from overlapping on this instance: each handler
 * call passes through {@link #regular} or {@link #backfill}, and one waits while the other runs.
 * The dispatcher already keeps regular runs of a job apart, and backfill runs go one at a time, so
 * per key at most one of each kind ever asks.
 *
 * <p>Design: {@link #inside} maps a key to the kinds inside a handler now (bits); {@code compute}
 * makes each entry and exit atomic per key without a global lock on the fire path (a job with no
 * backfill costs two map updates per run). A caller that finds the other kind inside sets the
 * {@code WAITING} bit and waits on {@link #monitor}, re-checking under it; an exit that clears a
 * {@code WAITING} bit notifies under the monitor, so a waiter either sees the exit or is waiting
 * when the notification comes (no lost wake-up).
 */
final class RunGate {
  private static final int REGULAR = 1;
  private static final int BACKFILL = 2;
  private static final int WAITING = 4;

  /** Key → kinds inside a handler (bits); absent when none. */
  private final ConcurrentHashMap<String, Integer> inside = new ConcurrentHashMap<>();

  /** Waiters wait here; exits that cleared a WAITING bit notify here. */
  private final Object monitor = new Object();

  /** A handler call. */
  interface Body {
    void run() throws Exception;
  }

  /** Runs a regular run's handler call, after any backfill run of the key on this instance. */
  void regular(String key, Body body) throws Exception {
    pass(key, REGULAR, body);
  }

  /** Runs a backfill run's handler call, after any regular run of the key on this instance. */
  void backfill(String key, Body body) throws Exception {
    pass(key, BACKFILL, body);
  }

  private void pass(String key, int kind, Body body) throws Exception {
    enter(key, kind);
    try {
      body.run();
    } finally {
      exit(key, kind);
    }
  }

  /** Waits, uninterruptibly (an interrupt is kept for the handler), until the other kind is out. */
  private void enter(String key, int kind) {
    if (tryEnter(key, kind)) {
      return;
    }
    boolean interrupted = false;
    synchronized (monitor) {
      while (!tryEnter(key, kind)) {
        try {
          monitor.wait();
        } catch (InterruptedException e) {
          interrupted = true; // never overlap: keep waiting, restore the flag after
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean tryEnter(String key, int kind) {
    int other = kind == REGULAR ? BACKFILL : REGULAR;
    boolean[] entered = {false};
    inside.compute(
        key,
        (k, v) -> {
          int bits = v == null ? 0 : v;
          if ((bits & other) != 0) {
            return bits | WAITING;
          }
          entered[0] = true;
          return bits | kind;
        });
    return entered[0];
  }

  private void exit(String key, int kind) {
    boolean[] wake = {false};
    inside.computeIfPresent(
        key,
        (k, v) -> {
          wake[0] = (v & WAITING) != 0;
          int bits = v & ~kind & ~WAITING;
          return bits == 0 ? null : bits;
        });
    if (wake[0]) {
      synchronized (monitor) {
        monitor.notifyAll();
      }
    }
  }
}
