package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.instant;
import static dev.kairos.jdbc.internal.Values.seconds;

import java.math.BigDecimal;
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
 * and returned again by the next read until they settle: the engine applies a change idempotently.
 * The price is that every read re-reads the last {@link #SETTLE} of changes. (A row cannot reveal a
 * gap in the sequence, since a job's older values are overwritten; hence time, not gaps.)
 *
 * <p>A deletion and a later re-creation of the same key are both returned when both are after the
 * cursor; the engine applies deletions first, so the job ends up as the table has it.
 */
public final class ChangeFeed {
  /** How long after its stamp a change is assumed committed (or rolled back) if it ever will be. */
  public static final Duration SETTLE = Duration.ofSeconds(2);

  /** How long tombstones are kept: an instance whose feed lags more misses deletions. */
  public static final Duration TOMBSTONE_RETENTION = Duration.ofMinutes(10);

  private final String now;
  private final String tombstone;
  private final String trim;
  private final String changedRows;
  private final String deletedRows;
  private final String lastSettledRow;
  private final String lastSettledTombstone;
  private final ChangeStamps stamps;

  /** The statements for the tables with this (validated) prefix in this dialect. */
  public ChangeFeed(String prefix, Dialect dialect) {
    String jobs = prefix + "jobs";
    String deleted = prefix + "deleted_jobs";
    stamps = new ChangeStamps(prefix, dialect);
    now = "SELECT " + dialect.now();
    tombstone =
        "INSERT INTO "
            + deleted
            + " (change_seq, job_key, deleted_at) VALUES ("
            + dialect.nextChange(prefix)
            + ", :key, "
            + dialect.now()
            + ")";
    trim = "DELETE FROM " + deleted + " WHERE deleted_at < " + dialect.now() + " - :retention";
    changedRows =
        "SELECT * FROM " + jobs + " WHERE change_seq > :cursor ORDER BY change_seq LIMIT :limit";
    deletedRows =
        "SELECT change_seq, job_key, deleted_at FROM "
            + deleted
            + " WHERE change_seq > :cursor ORDER BY change_seq LIMIT :limit";
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

  /** The database clock. */
  public Instant now(Handle h) {
    return instant(h.createQuery(now).mapTo(BigDecimal.class).one());
  }

  /** A cursor from which every change not yet settled will be read: the newest settled stamp. */
  public long cursor(Handle h, Duration settle) {
    BigDecimal settled = Values.decimal(now(h).minus(settle));
    long rows = last(h, lastSettledRow, settled);
    long tombstones = last(h, lastSettledTombstone, settled);
    return Math.max(rows, tombstones);
  }

  private static long last(Handle h, String sql, BigDecimal settled) {
    return h.createQuery(sql).bind("settled", settled).mapTo(Long.class).findOne().orElse(0L);
  }

  /**
   * At most {@code limit} changes after {@code cursor}, in sequence order, and the cursor to go on
   * from: the stamp of the last change before the first unsettled one.
   */
  public Page read(Handle h, long cursor, int limit, Duration settle) {
    Instant settledBefore = now(h).minus(settle); // before reading: conservative
    List<Stamp> rows =
        h.createQuery(changedRows)
            .bind("cursor", cursor)
            .bind("limit", limit)
            .map(
                (rs, ctx) ->
                    new Stamp(
                        rs.getLong("change_seq"),
                        Values.instant(rs.getBigDecimal("changed_at")),
                        JobRows.read(rs),
                        null))
            .list();
    List<Stamp> tombstones =
        h.createQuery(deletedRows)
            .bind("cursor", cursor)
            .bind("limit", limit)
            .map(
                (rs, ctx) ->
                    new Stamp(
                        rs.getLong("change_seq"),
                        instant(rs, "deleted_at"),
                        null,
                        rs.getString("job_key")))
            .list();
    long bound = Math.min(truncatedAt(rows, limit), truncatedAt(tombstones, limit));
    List<Stamp> all = new ArrayList<>(rows);
    all.addAll(tombstones);
    all.sort(Comparator.comparingLong(Stamp::seq));
    List<JobRows.Row> changed = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    long next = cursor;
    boolean settledSoFar = true;
    for (Stamp s : all.subList(0, Math.min(all.size(), limit))) {
      if (s.seq() > bound) {
        break;
      }
      if (s.row() != null) {
        changed.add(s.row());
      } else {
        deleted.add(s.deletedKey());
      }
      settledSoFar = settledSoFar && s.at() != null && !s.at().isAfter(settledBefore);
      if (settledSoFar) {
        next = s.seq();
      }
    }
    return new Page(changed, deleted, next);
  }

  /** The highest stamp a list cut at {@code limit} covers completely. */
  private static long truncatedAt(List<Stamp> list, int limit) {
    return list.size() < limit ? Long.MAX_VALUE : list.get(list.size() - 1).seq();
  }

  /** One stamped change: a row as it is now, or a deleted key. */
  private record Stamp(long seq, Instant at, JobRows.Row row, String deletedKey) {}

  /**
   * A page of the feed.
   *
   * @param changed rows changed after the cursor, as they are now (readable or not)
   * @param deleted keys deleted after the cursor
   * @param cursor where the next read starts
   */
  public record Page(List<JobRows.Row> changed, List<String> deleted, long cursor) {}
}
