package dev.kairos.jdbc.internal;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * What the MariaDB dialect does differently, in one place: the SQL {@link Dialect#MARIADB} uses
 * where H2 and PostgreSQL differ, and how the MySQL family is told apart.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Tested on MariaDB 10.11</b> (InnoDB, Connector/J 3.5). Needs 10.6 or newer: sequences
 * (10.3), {@code utf8mb4_nopad_bin}, and DELETE from a table its own subquery reads (10.3.2).
 *
 * <p><b>Clock.</b> {@link #NOW} is {@code UTC_TIMESTAMP(6)} as epoch seconds: microseconds, the
 * time the statement started, in UTC whatever the session time zone ({@code UNIX_TIMESTAMP(NOW(6))}
 * would convert the session's local time and go wrong in a daylight-saving overlap). Multiplying by
 * {@code 0.000001} keeps the decimal exact; dividing would round to {@code div_precision_increment}
 * (4) places.
 *
 * <p><b>Claims.</b> MariaDB's UPDATE has no {@code RETURNING} (only INSERT and DELETE do), so a
 * claim is an UPDATE and a re-read in one transaction, as on H2. MySQL evaluates SET assignments
 * left to right, each seeing the previous ones; the claim sets {@code recovery} from {@code state}
 * before it sets {@code state}, so it reads the old state, as the SQL standard would anyway.
 *
 * <p><b>Isolation.</b> InnoDB's default REPEATABLE READ takes gap locks on locking reads of absent
 * keys (an upsert of a new job), which deadlock concurrent inserts; every store transaction runs in
 * READ COMMITTED, as on the other databases (see {@link StoreConnections}). A deadlock that still
 * happens (two write-back batches locking rows in different orders) rolls back one transaction,
 * which {@link Database} runs again.
 *
 * <p><b>Change signal.</b> There is no LISTEN/NOTIFY: instances read the change feed every {@code
 * clusterPoll} (default 250 ms), which bounds how late a change made elsewhere is seen.
 *
 * <p><b>MySQL 8</b> ({@link Dialect#MYSQL}) runs this SQL too, but for what {@link MySqlSql} holds:
 * change stamps without a sequence, another collation, a version check.
 */
final class MariaDbSql {
  /** The database clock as DECIMAL(28,9) epoch seconds (microsecond resolution). */
  static final String NOW =
      "CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) * 0.000001"
          + " AS DECIMAL(28,9))";

  /** The schema of the connection. */
  static final String CURRENT_SCHEMA = "DATABASE()";

  private MariaDbSql() {}

  /** The next value of the change-feed sequence of tables with this prefix. */
  static String nextChange(String prefix) {
    return "NEXT VALUE FOR " + prefix + "change_seq";
  }

  /**
   * True for a MariaDB server, whichever driver reports it: MariaDB Connector/J says "MariaDB",
   * MySQL Connector/J says "MySQL" with a version such as {@code 5.5.5-10.11.6-MariaDB}. Asked
   * after {@link MySqlSql#check}.
   */
  static boolean check(DatabaseMetaData metaData) throws SQLException {
    String product = metaData.getDatabaseProductName();
    String version = metaData.getDatabaseProductVersion();
    return "MariaDB".equalsIgnoreCase(product)
        || ("MySQL".equalsIgnoreCase(product)
            && version != null
            && version.toLowerCase(Locale.ROOT).contains("mariadb"));
  }
}
