package dev.kairos.jdbc.internal;

import dev.kairos.jdbc.internal.ConnectionSource.Dedicated;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the instances of a cluster that the change feed has news, so they need not wait for their
 * next poll. On PostgreSQL by LISTEN/NOTIFY; elsewhere (H2) waiting simply times out.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Sending.</b> A committed write calls {@link #changed()}, which only marks the signal dirty.
 * A daemon thread sends one {@code pg_notify(channel, '')} in a transaction of its own for all the
 * writes marked since its last one, at most every {@link #NOTIFY_INTERVAL}. Not in the writing
 * transaction: PostgreSQL serializes the commits of transactions that notify (a global lock taken
 * at commit), which on this project's 2-core test machine cut four writers from about 2,400 to
 * 1,300 commits per second; a transaction that only notifies writes no WAL and costs about 0.15 ms.
 * Notifying after the commit is also safe: whoever wakes reads a feed that already has the change.
 * A notification lost (the thread fails, a listener reconnects) costs latency only: every instance
 * reads the feed at least every poll interval anyway.
 *
 * <p><b>Receiving.</b> {@link #await} listens on a connection of its own, outside the pool (see
 * {@link ConnectionSource#dedicated()}), and blocks in {@code PGConnection#getNotifications}. It
 * returns at most every {@link #GATHER} when notified, gathering what arrives meanwhile: each
 * notified return costs the caller a read of the feed, and with many writing instances the
 * notifications would otherwise make every instance read it tens of times a second. A failed
 * listener is closed and re-opened by the next call, which returns true since notifications may
 * have been missed meanwhile; a connection idle for {@link #CHECK_EVERY} is checked, so a silently
 * dead one is noticed too. Only the cluster's sync thread calls it. On a user's pool of one
 * connection it does not listen (the listener would hold that connection for good) and just waits.
 */
public final class ChangeSignal implements AutoCloseable {
  /** Shortest interval between two notifications sent by one store. */
  public static final Duration NOTIFY_INTERVAL = Duration.ofMillis(100);

  /**
   * Shortest interval between two notified returns of {@link #await}: notifications arriving sooner
   * are gathered into one, so the feed is read at most this often however many instances write.
   */
  public static final Duration GATHER = Duration.ofMillis(100);

  /** A listening connection that received nothing for this long is checked. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(ChangeSignal.class);

  /** The channel, or null when this signal does not notify (H2). */
  private final String channel;

  private final Database database;
  private final ConnectionSource source;

  /**
   * False on a user's pool of one connection, which the listener would hold for good, leaving none
   * for the store's work (every claim and write-back waited for the pool's timeout and failed):
   * this instance then sends notifications but reads other instances' changes by polling.
   */
  private final boolean listens;

  private final ReentrantLock lock = new ReentrantLock();

  /** Signalled when marked dirty or closed. */
  private final Condition dirtyOrClosed = lock.newCondition();

  /** Writes wait to be notified. Guarded by lock. */
  private boolean dirty;

  /** Guarded by lock. */
  private boolean closed;

  /** The sending thread, started by the first change. Guarded by lock. */
  private Thread notifier;

  /** Serializes {@link #await}; guards {@link #listenerDown} and {@link #lastHeard}. */
  private final Object listening = new Object();

  /** The listening connection, or null until (re)opened. */
  private volatile Dedicated listener;

  /** True while the listener cannot be opened (logged once per outage). */
  private boolean listenerDown;

  /** When the listener last received or was checked (System.nanoTime). */
  private long lastHeard;

  /** When {@link #await} last returned notified (System.nanoTime). Guarded by listening. */
  private long lastNotified;

  private ChangeSignal(
      String channel, Database database, ConnectionSource source, boolean listens) {
    this.channel = channel;
    this.database = database;
    this.source = source;
    this.listens = listens;
  }

  /**
   * LISTEN/NOTIFY on {@code channel} of a PostgreSQL database; only NOTIFY if {@code source} is a
   * pool of one connection (the listener would hold it: see {@link #listens}).
   */
  public static ChangeSignal postgres(Database database, ConnectionSource source, String channel) {
    boolean listens = source.poolSize() != 1;
    if (!listens) {
      log.warn(
          "{} has one connection, which listening on channel {} would hold for good: this"
              + " instance reads other instances' changes by polling (clusterPoll) instead; give"
              + " the pool two connections or more to be notified of them at once",
          source,
          channel);
    }
    return new ChangeSignal(channel, database, source, listens);
  }

  /** No notifications: {@link #await} just waits. */
  public static ChangeSignal polling() {
    return new ChangeSignal(null, null, null, false);
  }

  /** A write committed: other instances will be notified. */
  public void changed() {
    if (channel == null) {
      return;
    }
    lock.lock();
    try {
      if (closed) {
        return;
      }
      dirty = true;
      if (notifier == null) {
        notifier = new Thread(this::sendNotifications, "kairos-notify-" + channel);
        notifier.setDaemon(true);
        notifier.start();
      }
      dirtyOrClosed.signal();
    } finally {
      lock.unlock();
    }
  }

  private void sendNotifications() {
    try {
      for (; ; ) {
        lock.lock();
        try {
          while (!dirty && !closed) {
            dirtyOrClosed.await();
          }
          if (closed) {
            return;
          }
          dirty = false;
        } finally {
          lock.unlock();
        }
        sendOne();
        pause(NOTIFY_INTERVAL);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // only close() interrupts: exit
    }
  }

  private void sendOne() {
    try {
      database.withHandle(
          "notifying other instances of a change",
          h ->
              h.createQuery("SELECT 1 FROM (SELECT pg_notify(:channel, '')) AS sent")
                  .bind("channel", channel)
                  .mapTo(Integer.class)
                  .one());
    } catch (RuntimeException e) {
      log.debug("notifying channel {} failed; other instances poll", channel, e);
    }
  }

  /** Waits {@code d} or until closed. */
  private void pause(Duration d) throws InterruptedException {
    lock.lock();
    try {
      long nanos = d.toNanos();
      while (nanos > 0 && !closed) {
        nanos = dirtyOrClosed.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks up to {@code max} for a notification. Returns true if notified, or if the listener was
   * (re)opened and may have missed some.
   *
   * @throws InterruptedException if interrupted while waiting (noticed within {@code max})
   */
  public boolean await(Duration max) throws InterruptedException {
    if (!listens) {
      pause(max);
      return false;
    }
    synchronized (listening) {
      Dedicated d = listener;
      if (d == null) {
        if (listen() == null) {
          pause(max);
          return false;
        }
        return true;
      }
      try {
        checkIfIdle(d.connection());
        PGConnection pg = d.connection().unwrap(PGConnection.class);
        boolean notified = receive(pg, max.toMillis());
        if (notified) {
          lastHeard = System.nanoTime();
          long early = GATHER.toNanos() - (lastHeard - lastNotified);
          if (early > 0) {
            receive(pg, TimeUnit.NANOSECONDS.toMillis(early)); // gather, and drop, what comes
          }
          lastNotified = System.nanoTime();
        }
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        return notified;
      } catch (SQLException e) {
        if (!isClosed()) {
          log.warn(
              "the connection listening on channel {} failed; reopening it (meanwhile changes"
                  + " arrive by polling)",
              channel,
              e);
        }
        drop(d);
        return true;
      }
    }
  }

  /** Waits up to {@code millis} (at least 1) for notifications; true if any arrived. */
  private static boolean receive(PGConnection pg, long millis) throws SQLException {
    int wait = (int) Math.max(1, Math.min(Integer.MAX_VALUE, millis));
    PGNotification[] got = pg.getNotifications(wait);
    return got != null && got.length > 0;
  }

  /** Call only holding {@code listening}. Opens and returns the listener, or null if it fails. */
  private Dedicated listen() {
    Dedicated d = null;
    try {
      d = source.dedicated();
      try (Statement s = d.connection().createStatement()) {
        s.execute("LISTEN \"" + channel + "\"");
      }
      if (isClosed()) {
        drop(d);
        return null;
      }
      if (listenerDown) {
        log.info("listening on channel {} again", channel);
      }
      listenerDown = false;
      lastHeard = System.nanoTime();
      listener = d;
      return d;
    } catch (SQLException | RuntimeException e) {
      if (!listenerDown) {
        log.warn("cannot listen on channel {}; changes arrive by polling meanwhile", channel, e);
      }
      listenerDown = true;
      if (d != null) {
        drop(d);
      }
      return null;
    }
  }

  /** Call only holding {@code listening}. Checks a listener that has heard nothing for long. */
  private void checkIfIdle(Connection c) throws SQLException {
    if (System.nanoTime() - lastHeard < CHECK_EVERY.toNanos()) {
      return;
    }
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    }
    lastHeard = System.nanoTime();
  }

  /** Closes a listening connection, unlistening first in case it goes back to a user's pool. */
  private void drop(Dedicated d) {
    if (listener == d) {
      listener = null;
    }
    try (d) {
      try (Statement s = d.connection().createStatement()) {
        s.execute("UNLISTEN *");
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("closing the connection listening on channel {} failed", channel, e);
    }
  }

  private boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Stops sending and closes the listener. Idempotent. */
  @Override
  public void close() {
    Thread sender;
    lock.lock();
    try {
      closed = true;
      sender = notifier;
      dirtyOrClosed.signalAll();
    } finally {
      lock.unlock();
    }
    if (sender != null) {
      try {
        sender.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Dedicated d = listener;
    if (d != null) {
      drop(d); // a waiting await() fails at once and returns
    }
  }

  @Override
  public String toString() {
    if (channel == null) {
      return "polling";
    }
    return listens ? "LISTEN/NOTIFY on " + channel : "polling, NOTIFY on " + channel;
  }
}
