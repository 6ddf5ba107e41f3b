package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.instant;
import static dev.kairos.jdbc.internal.Values.seconds;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * The change feed: which jobs were written, and which deleted, after a cursor. Every method runs on
 * the caller's handle.
 *
 * <h2>Design notes</h2>
 *
 * <p>Each write of a job row stamps it with {@code change_seq}, the next value of one sequence (on
 * MySQL, of {@link ChangeStamps}), and {@code changed_at}, the database clock; a deletion leaves a
 * tombstone with the same stamp in {@code <prefix>deleted_jobs}. A row keeps only its newest stamp,
 * so the feed compacts itself: a reader gets each changed job once, as it is now. A cursor is a
 * sequence value.
 *
 * <p>Sequence values are taken before commit, so transactions commit out of sequence order: a
 * reader can see value 11 committed while 10 is still in flight. A cursor moved past 10 would lose
 * that change for good, and a lost change can orphan a job (the instance that had it queued dies,
 * and no other instance knows its new due time). So the cursor only moves over changes that are
 * <em>settled</em>: stamped at least {@link #SETTLE} before the read, by the database clock. A
 * transaction still open that long after taking its value is assumed gone (store transactions take
 * their value in their last statement and commit at once). Newer changes are returned too, at once,
 * and looked at again by every read until they settle; {@link Reader} returns each of them once. (A
 * row cannot reveal a gap in the sequence, since a job's older values are overwritten; hence time,
 * not gaps.)
 *
 * <p>A deletion and a later re-creation of the same key are both returned when both are after the
 * cursor; the engine applies deletions first, so the job ends up as the table has it.
 */
public final class ChangeFeed {
  /** How long after its stamp a change is assumed committed (or rolled back) if it ever will be. */
  public static final Duration SETTLE = Duration.ofSeconds(2);

  /** Stamps listed per query by {@link Reader#read} (at least its limit). */
  static final int STAMPS_PER_PAGE = 10_000;

  /** Most row ranges one {@link Reader#read} reads; more runs of new stamps are read as one. */
  static final int MAX_RANGES = 4;

  /** How long tombstones are kept: an instance whose feed lags more misses deletions. */
  public static final Duration TOMBSTONE_RETENTION = Duration.ofMinutes(10);

  private final PositionalBatch.Sql now;
  private final String tombstone;
  private final String trim;
  private final PositionalBatch.Sql changedStamps;
  private final PositionalBatch.Sql changedRowsBetween;
  private final PositionalBatch.Sql deletedRows;
  private final Dialect dialect;
  private final String lastSettledRow;
  private final String lastSettledTombstone;
  private final ChangeStamps stamps;

  /** The statements for the tables with this (validated) prefix in this dialect. */
  public ChangeFeed(String prefix, Dialect dialect) {
    String jobs = prefix + "jobs";
    String deleted = prefix + "deleted_jobs";
    stamps = new ChangeStamps(prefix, dialect);
    now = PositionalBatch.Sql.of("SELECT " + dialect.now());
    tombstone =
        "INSERT INTO "
            + deleted
            + " (change_seq, job_key, deleted_at) VALUES ("
            + dialect.nextChange(prefix)
            + ", :key, "
            + dialect.now()
            + ")";
    trim = "DELETE FROM " + deleted + " WHERE deleted_at < " + dialect.now() + " - :retention";
    this.dialect = dialect;
    // Whether a change has settled is decided by the database: the stamp's time is compared with
    // the bound in SQL, so that a read does not decode thousands of instants it only compares.
    changedStamps =
        PositionalBatch.Sql.of(
            "SELECT change_seq, CASE WHEN changed_at <= :settled THEN 1 ELSE 0 END AS settled"
                + " FROM "
                + jobs
                + " WHERE change_seq > :cursor ORDER BY change_seq LIMIT :limit");
    changedRowsBetween =
        PositionalBatch.Sql.of(
            "SELECT * FROM " + jobs + " WHERE change_seq BETWEEN :lo AND :hi ORDER BY change_seq");
    deletedRows =
        PositionalBatch.Sql.of(
            "SELECT change_seq, CASE WHEN deleted_at <= :settled THEN 1 ELSE 0 END AS settled,"
                + " job_key FROM "
                + deleted
                + " WHERE change_seq > :cursor ORDER BY change_seq LIMIT :limit");
    lastSettledRow =
        "SELECT change_seq FROM "
            + jobs
            + " WHERE change_seq IS NOT NULL AND changed_at <= :settled"
            + " ORDER BY change_seq DESC LIMIT 1";
    lastSettledTombstone =
        "SELECT change_seq FROM "
            + deleted
            + " WHERE deleted_at <= :settled ORDER BY change_seq DESC LIMIT 1";
  }

  /** Records the deletion of a job, and trims tombstones older than the retention. */
  public void deleted(Handle h, String key) {
    stamps.on(h).bind(h.createUpdate(tombstone)).bind("key", key).execute();
    h.createUpdate(trim).bind("retention", seconds(TOMBSTONE_RETENTION)).execute();
  }

  /** {@link #deleted} for several jobs: the tombstones in one batch, then one trim. */
  public void deletedAll(Handle h, List<String> keys) {
    var batch = h.prepareBatch(tombstone);
    ChangeStamps.Source stamp = stamps.on(h);
    for (String key : keys) {
      stamp.bind(batch).bind("key", key).add();
    }
    batch.execute();
    h.createUpdate(trim).bind("retention", seconds(TOMBSTONE_RETENTION)).execute();
  }

  /**
   * The database clock. Read on every read of the feed, so straight through JDBC ({@link
   * PositionalBatch}), as the feed's other queries.
   */
  public Instant now(Handle h) throws SQLException {
    try (PositionalBatch q = now.prepare(h, dialect)) {
      List<BigDecimal> read = q.query(rs -> rs.getBigDecimal(1));
      if (read.size() != 1 || read.get(0) == null) {
        throw new SQLException("the database clock read returned " + read);
      }
      return instant(read.get(0));
    }
  }

  /** A cursor from which every change not yet settled will be read: the newest settled stamp. */
  public long cursor(Handle h, Duration settle) throws SQLException {
    BigDecimal settled = Values.decimal(now(h).minus(settle));
    long rows = last(h, lastSettledRow, settled);
    long tombstones = last(h, lastSettledTombstone, settled);
    return Math.max(rows, tombstones);
  }

  private static long last(Handle h, String sql, BigDecimal settled) {
    return h.createQuery(sql).bind("settled", settled).mapTo(Long.class).findOne().orElse(0L);
  }

  /**
   * A reader of the feed that returns each change once: it remembers the stamps it returned above
   * the cursor it handed out, and a read that continues from that cursor skips them. One per
   * instance ({@link Cluster}); its methods are serialized.
   */
  public Reader reader() {
    return new Reader();
  }

  /**
   * Reads the feed for one instance.
   *
   * <h2>Design notes</h2>
   *
   * <p>Every read must look at all changes after the settled cursor, up to {@link #SETTLE} of them
   * (a change with a lower stamp may commit late). Sending those rows (about 40 columns each) and
   * mapping them into records again on every read cost an instance of a three-instance cluster at
   * 1,000 fires/s about half of its Java CPU samples, and with more unsettled changes than a page
   * held the feed fell behind: the newest changes were not read until the oldest settled. So a read
   * first lists the stamps only, page by page until it has {@code limit} stamps it has not returned
   * before or reaches the end; then it reads the whole rows of the new stamps' ranges (a run of new
   * stamps each, normally one), mapping only the new ones. The cursor moves as before (over the
   * settled prefix); stamps at or below it are forgotten.
   *
   * <p>The stamp listing is still the bulk of a read (about 2 s of every instance's changes, some
   * 4,000 stamps at 1,000 fires/s, listed on every read). So it lists each stamp's {@code
   * change_seq} and whether it has settled, which the query decides ({@code changed_at <=} the
   * bound, taken from the database clock before the read, as before), instead of the stamp's time
   * for the reader to decode and compare; it runs straight through JDBC ({@link PositionalBatch});
   * and the stamps returned are a sorted array of longs ({@link SortedStamps}). Together these took
   * about a fifth off the CPU per fire of the thread that reads the feed (three instances, 1,000
   * fires/s). A stamp whose time is null or later than the bound is unsettled, as before.
   *
   * <p>A read from any other cursor than the one the last read returned (a new reader, an engine
   * that failed to apply a page and goes back) forgets what was returned and returns everything
   * after that cursor. Correctness never depended on a change being returned twice: how often an
   * unsettled change was re-read depended on timing alone.
   */
  public final class Reader {
    /** Stamps above {@link #expected} returned by an earlier read. */
    private final SortedStamps returned = new SortedStamps();

    /** The cursor the last read returned; a read from it skips {@link #returned}. */
    private long expected = Long.MIN_VALUE;

    private Reader() {}

    /**
     * At most {@code limit} changes after {@code cursor}, in sequence order, none returned by this
     * reader before if {@code cursor} is the one its last read returned, and the cursor to go on
     * from: the stamp of the last change before the first unsettled one.
     */
    public synchronized Page read(Handle h, long cursor, int limit, Duration settle)
        throws SQLException {
      if (cursor != expected) {
        returned.clear();
      }
      // Taken before reading, so conservative: a stamp older than this was committed (or gone)
      // before the queries below looked.
      BigDecimal settledBefore = Values.decimal(now(h).minus(settle));
      List<Stamp> rows = new ArrayList<>();
      long rowsBound = Long.MAX_VALUE;
      int fresh = 0;
      int pageSize = Math.max(limit, STAMPS_PER_PAGE);
      for (long after = cursor; ; ) {
        List<Stamp> page = stamps(h, changedStamps, settledBefore, after, pageSize, false);
        rows.addAll(page);
        for (Stamp s : page) {
          fresh += returned.contains(s.seq()) ? 0 : 1;
        }
        if (page.size() < pageSize) {
          break;
        }
        after = page.get(page.size() - 1).seq();
        if (fresh >= limit) {
          rowsBound = after;
          break;
        }
      }
      List<Stamp> tombstones = stamps(h, deletedRows, settledBefore, cursor, limit, true);
      long bound = Math.min(rowsBound, truncatedAt(tombstones, limit));
      List<Stamp> all = new ArrayList<>(rows);
      all.addAll(tombstones);
      all.sort(Comparator.comparingLong(Stamp::seq));
      long[] pickedSeqs = new long[Math.min(limit, all.size())];
      int picked = 0;
      List<String> deleted = new ArrayList<>();
      long next = cursor;
      boolean settledSoFar = true;
      for (Stamp s : all) {
        if (s.seq() > bound) {
          break;
        }
        if (!returned.contains(s.seq())) {
          if (picked == limit) {
            break;
          }
          pickedSeqs[picked++] = s.seq();
          if (s.deletedKey() != null) {
            deleted.add(s.deletedKey());
          }
        }
        settledSoFar = settledSoFar && s.settled();
        if (settledSoFar) {
          next = s.seq();
        }
      }
      SortedStamps wanted = new SortedStamps();
      wanted.addAll(pickedSeqs, picked);
      List<JobRows.Row> changed = new ArrayList<>();
      for (long[] range : ranges(rows, wanted)) {
        changed.addAll(rowsBetween(h, range[0], range[1], wanted));
      }
      returned.addAll(pickedSeqs, picked); // a row re-stamped meanwhile comes with its new stamp
      returned.removeUpTo(next);
      expected = next;
      return new Page(changed, deleted, next);
    }

    /**
     * Stamp ranges that cover the picked rows: one per run of picked stamps in {@code rows} (a row
     * returned before ends a run, so its whole row is not sent again), or, with more than {@value
     * #MAX_RANGES} runs, one range over them all. Normally one: new changes follow those returned.
     */
    private static List<long[]> ranges(List<Stamp> rows, SortedStamps picked) {
      List<long[]> runs = new ArrayList<>();
      long[] run = null;
      for (Stamp s : rows) {
        if (!picked.contains(s.seq())) {
          run = null;
        } else if (run == null) {
          run = new long[] {s.seq(), s.seq()};
          runs.add(run);
        } else {
          run[1] = s.seq();
        }
      }
      if (runs.size() > MAX_RANGES) {
        return List.of(new long[] {runs.get(0)[0], runs.get(runs.size() - 1)[1]});
      }
      return runs;
    }

    /**
     * Whole rows stamped from {@code lo} to {@code hi} with a stamp in {@code wanted}, in order.
     */
    private List<JobRows.Row> rowsBetween(Handle h, long lo, long hi, SortedStamps wanted)
        throws SQLException {
      List<JobRows.Row> out;
      try (PositionalBatch q = changedRowsBetween.prepare(h, dialect)) {
        q.bigint("lo", lo).bigint("hi", hi);
        out = q.query(rs -> wanted.contains(rs.getLong("change_seq")) ? JobRows.read(rs) : null);
      }
      out.removeIf(java.util.Objects::isNull);
      return out;
    }
  }

  /**
   * The stamps a stamp query ({@code change_seq}, whether it is settled, maybe the deleted key)
   * lists after {@code after}, in order, at most {@code limit}.
   */
  private List<Stamp> stamps(
      Handle h, PositionalBatch.Sql sql, BigDecimal settled, long after, int limit, boolean keys)
      throws SQLException {
    try (PositionalBatch q = sql.prepare(h, dialect)) {
      q.number("settled", settled).bigint("cursor", after).integer("limit", limit);
      return q.query(
          rs ->
              new Stamp(
                  rs.getLong("change_seq"),
                  rs.getInt("settled") == 1,
                  keys ? rs.getString("job_key") : null));
    }
  }

  /** The highest stamp a list cut at {@code limit} covers completely. */
  private static long truncatedAt(List<Stamp> list, int limit) {
    return list.size() < limit ? Long.MAX_VALUE : list.get(list.size() - 1).seq();
  }

  /** One stamped change: whether it has settled, and the deleted key of a tombstone. */
  private record Stamp(long seq, boolean settled, String deletedKey) {}

  /**
   * A page of the feed.
   *
   * @param changed rows changed after the cursor, as they are now (readable or not)
   * @param deleted keys deleted after the cursor
   * @param cursor where the next read starts
   */
  public record Page(List<JobRows.Row> changed, List<String> deleted, long cursor) {}
}
