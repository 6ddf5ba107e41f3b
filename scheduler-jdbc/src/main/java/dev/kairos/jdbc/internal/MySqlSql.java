package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;

/**
 * What the MySQL dialect ({@link Dialect#MYSQL}) does differently from MariaDB's ({@link
 * MariaDbSql}), in one place. Everything not named here is MariaDB's SQL, which MySQL 8 runs as it
 * is: the clock ({@link MariaDbSql#NOW}), {@code DATABASE()}, READ COMMITTED, the named lock of
 * migrations, UPDATE-then-re-read claims (neither server has UPDATE … RETURNING).
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Needs MySQL 8.0.17 or newer</b>, InnoDB: {@code utf8mb4_0900_bin} (8.0.17) is MySQL's only
 * binary NO PAD utf8mb4 collation, which keys need ('a ' and 'a' are two jobs); {@link #check}
 * refuses older servers rather than let the tables fall back to a case-insensitive collation.
 *
 * <p><b>Change stamps without a sequence.</b> MySQL has no {@code CREATE SEQUENCE}. The change feed
 * ({@link ChangeFeed}) needs what a sequence gives: values unique over job rows and tombstones,
 * taken just before commit, never blocking another transaction. An AUTO_INCREMENT counter has those
 * properties (InnoDB hands out values under a short mutex, not a lock held to commit, and a
 * rolled-back value is lost, like a sequence's). So the stamp is a bound parameter ({@link
 * #CHANGE_PARAMETER}), and {@link ChangeStamps} takes one counter value {@code b} per statement (an
 * INSERT into {@code <prefix>change_stamps}, whose row the same transaction deletes again) and
 * stamps the statement's rows {@code b * STAMPS_PER_VALUE + i}. A single-row counter bumped with
 * {@code LAST_INSERT_ID(n + 1)} would have taken one statement less, but its row lock, held to
 * commit, would serialize every writing transaction of the cluster. The counter survives restarts
 * with an empty table: MySQL 8 and MariaDB 10.2.4+ persist AUTO_INCREMENT.
 *
 * <p><b>History trim.</b> MySQL refuses a DELETE whose subquery reads the table it deletes from
 * (error 1093); {@link RunTable} wraps that subquery in a derived table, which MySQL materializes
 * (a derived table with LIMIT is never merged into the outer query). That form runs everywhere, so
 * all dialects use it.
 *
 * <p><b>DDL</b> ({@code dev/kairos/jdbc/mysql/}): MariaDB's, with {@code <prefix>change_stamps}
 * instead of the sequence, and the collation in two executable comments: a MySQL one with version
 * 80017, run by MySQL 8.0.17+ only (MariaDB ignores MySQL version comments from 5.7 on), naming
 * {@code utf8mb4_0900_bin}; and a MariaDB one ({@code M!100600}), run by MariaDB 10.6+ only, naming
 * {@code utf8mb4_nopad_bin}. So the MySQL scripts also run on MariaDB, where the test kit runs
 * them.
 *
 * <p><b>Tested</b> only against MariaDB 10.11 through MySQL Connector/J with this dialect forced
 * ({@link #forceFor}); never against a MySQL server. What only MySQL runs: the collation comment of
 * version 80017, and {@link #check} of a real MySQL version.
 */
final class MySqlSql {
  /** The parameter each stamping statement binds to its row's change stamp. */
  static final String CHANGE_PARAMETER = "change_seq";

  /** Stamps per counter value: a statement's rows get {@code value * this + 0, 1, 2, …}. */
  static final long STAMPS_PER_VALUE = 1L << 16;

  /** Oldest MySQL supported: 8.0.17, the first with {@code utf8mb4_0900_bin}. */
  private static final int[] OLDEST = {8, 0, 17};

  private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)\\.(\\d+)");

  /**
   * Test hook: connections whose URL starts with a key are given the MySQL dialect whatever server
   * answers, so the kit can run this dialect against MariaDB. Empty outside tests.
   */
  private static final Map<String, Boolean> FORCED = new ConcurrentHashMap<>();

  private MySqlSql() {}

  /** The SQL of the next change stamp: a parameter, bound by {@link ChangeStamps}. */
  static String nextChange() {
    return ":" + CHANGE_PARAMETER;
  }

  /** Takes the next counter value of tables with this prefix (its generated key). */
  static String takeCounterValue(String prefix) {
    return "INSERT INTO " + prefix + "change_stamps (seq) VALUES (NULL)";
  }

  /** Deletes the row {@link #takeCounterValue} inserted (the counter keeps its value). */
  static String dropCounterRow(String prefix) {
    return "DELETE FROM " + prefix + "change_stamps WHERE seq = :seq";
  }

  /** Takes a counter value: the base of {@link #STAMPS_PER_VALUE} stamps. */
  static long takeBase(Handle h, String prefix) {
    long value =
        h.createUpdate(takeCounterValue(prefix))
            .executeAndReturnGeneratedKeys("seq")
            .mapTo(Long.class)
            .one();
    h.createUpdate(dropCounterRow(prefix)).bind("seq", value).execute();
    return Math.multiplyExact(value, STAMPS_PER_VALUE);
  }

  /**
   * True for a MySQL server (MySQL Connector/J or MariaDB Connector/J report "MySQL", and a version
   * without "MariaDB"), or for a connection {@link #forceFor} names.
   *
   * @throws StoreException for a MySQL older than 8.0.17
   */
  static boolean check(DatabaseMetaData metaData) throws SQLException {
    if (forced(metaData.getURL())) {
      return true;
    }
    if (!"MySQL".equalsIgnoreCase(metaData.getDatabaseProductName())) {
      return false;
    }
    String version = metaData.getDatabaseProductVersion();
    if (version != null && version.toLowerCase(Locale.ROOT).contains("mariadb")) {
      return false;
    }
    if (!atLeastOldest(version)) {
      throw new StoreException(
          "MySQL "
              + version
              + " is not supported: the JDBC store needs MySQL 8.0.17 or newer (for the"
              + " utf8mb4_0900_bin collation job keys are compared with)");
    }
    return true;
  }

  /** True if {@code version} starts with a version number at least 8.0.17. */
  static boolean atLeastOldest(String version) {
    Matcher m = VERSION.matcher(version == null ? "" : version);
    if (!m.find()) {
      return false;
    }
    for (int i = 0; i < OLDEST.length; i++) {
      int part = Integer.parseInt(m.group(i + 1));
      if (part != OLDEST[i]) {
        return part > OLDEST[i];
      }
    }
    return true;
  }

  /**
   * Test hook (internal, not API): gives connections whose JDBC URL starts with {@code urlPrefix}
   * the MySQL dialect, whatever server answers, until {@link #unforce}.
   */
  static void forceFor(String urlPrefix) {
    FORCED.put(urlPrefix, Boolean.TRUE);
  }

  /** Ends {@link #forceFor} for {@code urlPrefix}. */
  static void unforce(String urlPrefix) {
    FORCED.remove(urlPrefix);
  }

  private static boolean forced(String url) {
    if (url == null || FORCED.isEmpty()) {
      return false;
    }
    for (String prefix : FORCED.keySet()) {
      if (url.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
