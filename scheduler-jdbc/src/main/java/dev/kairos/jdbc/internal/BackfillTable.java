package dev.kairos.jdbc.internal;

import static dev.kairos.jdbc.internal.Values.constant;
import static dev.kairos.jdbc.internal.Values.decimal;
import static dev.kairos.jdbc.internal.Values.instant;

import dev.kairos.spi.BackfillSlot;
import dev.kairos.spi.JobRules;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of the {@code <prefix>backfill} table (schema version 6): one row per queued slot,
 * primary key (job_key, fire_time), claimed by a compare-and-set on its state, so the database
 * decides which instance runs it. Every method runs inside the caller's transaction.
 *
 * <p>Rows are read as strictly as jobs: a row whose key, fire time or state is not one the engine
 * writes (edited by hand) is refused with its key named, reported to {@code bad} and never offered,
 * so never run. A row in a state the engine never writes is not even read by {@link #next} (it
 * holds up none of the job's other slots); it is named when the store opens ({@link
 * #reportUnknownStates}) and when the job's slots are listed.
 */
final class BackfillTable {
  private final String fireTimes;
  private final String insert;
  private final String next;
  private final String claim;
  private final String finish;
  private final String release;
  private final String slots;
  private final String delete;
  private final String countRuns;
  private final String slotAt;
  private final String insertRun;
  private final String deleteRun;
  private final String unknown;

  /** The statements for the tables with this (validated) prefix. */
  BackfillTable(String prefix) {
    String t = prefix + "backfill";
    fireTimes = "SELECT fire_time FROM " + t + " WHERE job_key = :key";
    insert =
        "INSERT INTO "
            + t
            + " (job_key, fire_time, state, owner) VALUES (:key, :fire, 'PENDING', NULL)";
    // A job's earliest slot not done, when it is pending: its slots run one at a time, in order.
    // Only a slot the engine could have written waits for another: a row in a state of no one's
    // writing (edited by hand) is never run and must not keep the job's later slots from running.
    next =
        "SELECT b.job_key, b.fire_time, b.state, b.owner, b.kind FROM "
            + t
            + " b WHERE b.state = 'PENDING' AND NOT EXISTS (SELECT 1 FROM "
            + t
            + " o WHERE o.job_key = b.job_key AND o.state IN ('PENDING', 'RUNNING') AND o.fire_time <"
            + " b.fire_time) ORDER BY b.fire_time, b.job_key LIMIT :limit";
    claim =
        "UPDATE "
            + t
            + " SET state = 'RUNNING', owner = :owner WHERE job_key = :key AND fire_time = :fire"
            + " AND state = 'PENDING'";
    finish =
        "UPDATE "
            + t
            + " SET state = 'DONE', owner = NULL WHERE job_key = :key AND fire_time = :fire AND"
            + " state = 'RUNNING' AND owner = :owner AND kind = 'BACKFILL'";
    release = "UPDATE " + t + " SET state = 'PENDING', owner = NULL WHERE state = 'RUNNING'";
    slots = "SELECT * FROM " + t + " WHERE job_key = :key ORDER BY fire_time";
    delete = "DELETE FROM " + t + " WHERE job_key = :key";
    countRuns = "SELECT COUNT(*) FROM " + t + " WHERE job_key = :key AND kind = 'RUN'";
    slotAt = "SELECT COUNT(*) FROM " + t + " WHERE job_key = :key AND fire_time = :fire";
    insertRun =
        "INSERT INTO "
            + t
            + " (job_key, fire_time, state, owner, kind) VALUES (:key, :fire, 'RUNNING', :owner,"
            + " 'RUN')";
    unknown =
        "SELECT * FROM "
            + t
            + " WHERE state NOT IN ('PENDING', 'RUNNING', 'DONE') ORDER BY job_key, fire_time";
    deleteRun =
        "DELETE FROM "
            + t
            + " WHERE job_key = :key AND fire_time = :fire AND kind = 'RUN' AND state = 'RUNNING'"
            + " AND owner = :owner";
  }

  /**
   * Reports to {@code bad} every row in a state the engine never writes ({@link #next} does not
   * read them): asked when the store opens.
   */
  void reportUnknownStates(Handle h, BiConsumer<String, String> bad) {
    read(h.createQuery(unknown), bad);
  }

  /** The job's recorded concurrent runs (RUN rows, in any state). */
  int runs(Handle h, String key) {
    return h.createQuery(countRuns).bind("key", key).mapTo(Integer.class).one();
  }

  /**
   * Records a concurrent run (a RUNNING row of kind RUN owned by {@code owner}) unless the job has
   * a row at this fire time already; true if it was added. Call holding the job row's lock.
   */
  boolean addRun(Handle h, String key, Instant fire, String owner) {
    if (h.createQuery(slotAt)
            .bind("key", key)
            .bind("fire", decimal(fire))
            .mapTo(Integer.class)
            .one()
        > 0) {
      return false;
    }
    h.createUpdate(insertRun)
        .bind("key", key)
        .bind("fire", decimal(fire))
        .bind("owner", owner)
        .execute();
    return true;
  }

  /** Deletes a concurrent run's row if {@code owner} still runs it; true if it did. */
  boolean deleteRun(Handle h, String key, Instant fire, String owner) {
    return h.createUpdate(deleteRun)
            .bind("key", key)
            .bind("fire", decimal(fire))
            .bind("owner", owner)
            .execute()
        == 1;
  }

  /** Inserts the fire times the job has no slot for; returns how many. */
  int add(Handle h, String key, List<Instant> fires) {
    Set<Instant> have = new HashSet<>();
    h.createQuery(fireTimes)
        .bind("key", key)
        .map((rs, ctx) -> instant(rs.getBigDecimal("fire_time")))
        .forEach(have::add);
    var batch = h.prepareBatch(insert);
    int n = 0;
    for (Instant f : fires) {
      if (have.add(f)) {
        batch.bind("key", key).bind("fire", decimal(f)).add();
        n++;
      }
    }
    if (n > 0) {
      batch.execute();
    }
    return n;
  }

  /** See {@code JobStore.nextBackfill}; refused rows go to {@code bad} (key, problem). */
  List<BackfillSlot> next(Handle h, int limit, BiConsumer<String, String> bad) {
    return read(h.createQuery(next).bind("limit", limit), bad);
  }

  boolean claim(Handle h, String key, Instant fire, String owner) {
    return h.createUpdate(claim)
            .bind("key", key)
            .bind("fire", decimal(fire))
            .bind("owner", owner)
            .execute()
        == 1;
  }

  boolean finish(Handle h, String key, Instant fire, String owner) {
    return h.createUpdate(finish)
            .bind("key", key)
            .bind("fire", decimal(fire))
            .bind("owner", owner)
            .execute()
        == 1;
  }

  /** RUNNING slots whose owner is not in {@code live} become PENDING. */
  int release(Handle h, Collection<String> live) {
    List<String> owners = List.copyOf(live);
    StringBuilder sql = new StringBuilder(release);
    if (!owners.isEmpty()) {
      sql.append(" AND (owner IS NULL OR owner NOT IN (");
      for (int i = 0; i < owners.size(); i++) {
        sql.append(i == 0 ? ":o" : ", :o").append(i);
      }
      sql.append("))");
    }
    var u = h.createUpdate(sql.toString());
    for (int i = 0; i < owners.size(); i++) {
      u.bind("o" + i, owners.get(i));
    }
    return u.execute();
  }

  List<BackfillSlot> slots(Handle h, String key, BiConsumer<String, String> bad) {
    return read(h.createQuery(slots).bind("key", key), bad);
  }

  void delete(Handle h, String key) {
    h.createUpdate(delete).bind("key", key).execute();
  }

  void deleteAll(Handle h, List<String> keys) {
    var batch = h.prepareBatch(delete);
    for (String key : keys) {
      batch.bind("key", key).add();
    }
    batch.execute();
  }

  private static List<BackfillSlot> read(
      org.jdbi.v3.core.statement.Query q, BiConsumer<String, String> bad) {
    List<BackfillSlot> out = new ArrayList<>();
    q.map(BackfillTable::row)
        .forEach(
            r -> {
              if (r.slot() != null) {
                out.add(r.slot());
              } else {
                bad.accept(r.key(), r.problem());
              }
            });
    return out;
  }

  /** A row read: its slot, or the reason it is refused. */
  private record Row(String key, BackfillSlot slot, String problem) {}

  private static Row row(ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws SQLException {
    String key = rs.getString("job_key");
    try {
      JobRules.checkKey(Objects.requireNonNull(key, "job_key is null"));
      Instant fire = Objects.requireNonNull(instant(rs, "fire_time"), "fire_time is null");
      BackfillSlot.State state =
          Objects.requireNonNull(constant(rs, "state", BackfillSlot.State.class), "state is null");
      String owner = rs.getString("owner");
      if ((state == BackfillSlot.State.RUNNING) != (owner != null)) {
        throw new IllegalArgumentException(
            "owner "
                + (owner == null ? "missing for a RUNNING slot" : "set on a " + state + " slot"));
      }
      BackfillSlot.Kind kind =
          Objects.requireNonNull(constant(rs, "kind", BackfillSlot.Kind.class), "kind is null");
      if (kind == BackfillSlot.Kind.RUN && state == BackfillSlot.State.DONE) {
        throw new IllegalArgumentException("a RUN row is never DONE");
      }
      return new Row(key, new BackfillSlot(key, fire, state, owner, kind), null);
    } catch (IllegalArgumentException | NullPointerException e) {
      return new Row(String.valueOf(key), null, e.getMessage());
    }
  }
}
