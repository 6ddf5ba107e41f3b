package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The databases the store supports, and what differs between them. */
public enum Dialect {
  /** H2 2.x, embedded. */
  H2("h2", "H2"),
  /** PostgreSQL 12 or newer. */
  POSTGRESQL("postgresql", "PostgreSQL"),
  /** MariaDB 10.6 or newer, InnoDB; what differs is in {@link MariaDbSql}. */
  MARIADB("mariadb", "MariaDB"),
  /** MySQL 8.0.17 or newer, InnoDB: MariaDB's SQL but for what {@link MySqlSql} holds. */
  MYSQL("mysql", "MySQL");

  private static final Logger log = LoggerFactory.getLogger(Dialect.class);

  private final String folder;
  private final String productName;

  Dialect(String folder, String productName) {
    this.folder = folder;
    this.productName = productName;
  }

  /** The dialect of a connection, by its product name; a {@link StoreException} for others. */
  public static Dialect of(DatabaseMetaData metaData) throws SQLException {
    if (MySqlSql.check(metaData)) {
      return MYSQL;
    }
    if (MariaDbSql.check(metaData)) {
      return MARIADB;
    }
    String product = metaData.getDatabaseProductName();
    for (Dialect d : values()) {
      if (d.productName.equalsIgnoreCase(product)) {
        return d;
      }
    }
    throw new StoreException(
        "unsupported database '"
            + product
            + " "
            + metaData.getDatabaseProductVersion()
            + "': the JDBC store supports H2, PostgreSQL, MariaDB and MySQL");
  }

  private static final String H2_NOW =
      "CAST(CAST(DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00',"
          + " CURRENT_TIMESTAMP AT TIME ZONE 'UTC') AS NUMERIC(28,0)) * 0.000001 AS NUMERIC(28,9))";

  /**
   * The characters the store's text columns hold, or null for all of Unicode: on PostgreSQL, those
   * of the database's encoding, which it is created with (a LATIN1 database refuses an error text
   * in Japanese; SQL_ASCII keeps any bytes but NUL); an encoding Java has no charset for is taken
   * to hold ASCII alone. H2, and MariaDB and MySQL, whose tables the schema makes utf8mb4, hold all
   * of Unicode. Asked once, at open.
   *
   * @param c a connection to the database
   * @return the charset, or null
   * @throws SQLException if the database fails
   */
  public java.nio.charset.Charset textCharset(java.sql.Connection c) throws SQLException {
    if (this != POSTGRESQL) {
      return null;
    }
    String encoding;
    try (java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SHOW server_encoding")) {
      encoding = rs.next() ? rs.getString(1) : null;
    }
    return postgresCharset(encoding);
  }

  /**
   * The largest statement the server accepts, in bytes: MariaDB's and MySQL's {@code
   * max_allowed_packet} (one statement more at open); {@link Long#MAX_VALUE} for the others, whose
   * limits (1 GB a value) are far beyond what a job's data should hold. A longer statement makes
   * MariaDB drop the connection ("Socket error"), which says nothing of the cause.
   *
   * @param c a connection to the database
   * @return the limit in bytes
   * @throws SQLException if the database cannot be asked
   */
  public long maxStatementBytes(java.sql.Connection c) throws SQLException {
    if (this != MARIADB && this != MYSQL) {
      return Long.MAX_VALUE;
    }
    try (java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
      return rs.next() ? rs.getLong(1) : Long.MAX_VALUE;
    }
  }

  /** The Java charset of a PostgreSQL server encoding (see {@link #textCharset}). */
  static java.nio.charset.Charset postgresCharset(String encoding) {
    String e = encoding == null ? "" : encoding.toUpperCase(Locale.ROOT);
    if (e.equals("UTF8") || e.equals("SQL_ASCII")) {
      return null;
    }
    String name =
        switch (e) {
          case "LATIN1" -> "ISO-8859-1";
          case "LATIN2" -> "ISO-8859-2";
          case "LATIN3" -> "ISO-8859-3";
          case "LATIN4" -> "ISO-8859-4";
          case "LATIN5" -> "ISO-8859-9";
          case "LATIN7" -> "ISO-8859-13";
          case "LATIN9" -> "ISO-8859-15";
          case "ISO_8859_5" -> "ISO-8859-5";
          case "ISO_8859_6" -> "ISO-8859-6";
          case "ISO_8859_7" -> "ISO-8859-7";
          case "ISO_8859_8" -> "ISO-8859-8";
          case "KOI8R" -> "KOI8-R";
          case "KOI8U" -> "KOI8-U";
          case "WIN866" -> "IBM866";
          case "WIN874" -> "x-windows-874";
          case "EUC_JP" -> "EUC-JP";
          case "EUC_KR" -> "EUC-KR";
          case "EUC_CN" -> "GB2312";
          case "EUC_TW" -> "x-EUC-TW";
          default -> e.startsWith("WIN125") ? "windows-" + e.substring(3) : "US-ASCII";
        };
    try {
      return java.nio.charset.Charset.forName(name);
    } catch (IllegalArgumentException unsupported) {
      return java.nio.charset.StandardCharsets.US_ASCII;
    }
  }

  /** The resource folder holding this dialect's DDL scripts. */
  public String folder() {
    return folder;
  }

  /**
   * The database clock as NUMERIC(28,9) epoch seconds, the encoding of every instant column.
   * PostgreSQL's {@code clock_timestamp()} is the time of the call; H2 has only the start of the
   * transaction ({@code CURRENT_TIMESTAMP}), which its short store transactions make close enough.
   *
   * <p>H2's value is counted in whole microseconds (the precision of its {@code CURRENT_TIMESTAMP})
   * from the epoch, both sides in UTC, and scaled by multiplication. {@code EXTRACT(EPOCH ...)}
   * gives the same value, but H2 computes it with a {@code BigDecimal} division whose cost depends
   * on the value: in a profile of {@code scheduleAll} it took a quarter of H2's time, and 100,000
   * one-row inserts stamped with it took 0.3 to 3.5 s against 0.15 s this way.
   */
  public String now() {
    return switch (this) {
      case POSTGRESQL -> "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS NUMERIC(28,9))";
      case MARIADB, MYSQL -> MariaDbSql.NOW;
      case H2 -> H2_NOW;
    };
  }

  /**
   * The next value of the change-feed sequence of tables with this prefix; on MySQL a parameter
   * that {@link ChangeStamps} binds.
   */
  public String nextChange(String prefix) {
    return switch (this) {
      case POSTGRESQL -> "nextval('" + prefix + "change_seq')";
      case MARIADB -> MariaDbSql.nextChange(prefix);
      case MYSQL -> MySqlSql.nextChange();
      case H2 -> "NEXT VALUE FOR " + prefix + "change_seq";
    };
  }

  /**
   * The clause that locks the rows a query reads against their writers until the transaction ends,
   * sharing them with other such readers where the database can: PostgreSQL's {@code FOR SHARE}
   * (its upserts run two at a time, see {@code parallelUpserts}); {@code FOR UPDATE} elsewhere (H2
   * has no shared row lock; MariaDB's and MySQL's upserts run one at a time).
   */
  public String sharedRowLock() {
    return this == POSTGRESQL ? "FOR SHARE" : "FOR UPDATE";
  }

  /** The SQL expression naming the connection's current schema. */
  String currentSchema() {
    return mysqlFamily() ? MariaDbSql.CURRENT_SCHEMA : "CURRENT_SCHEMA";
  }

  /**
   * The isolation level of every store transaction ({@code java.sql.Connection} constant): READ
   * COMMITTED on every database, whatever its default (see {@link StoreConnections}).
   */
  public int isolation() {
    return java.sql.Connection.TRANSACTION_READ_COMMITTED;
  }

  /** True for MariaDB and MySQL, which share most of their SQL ({@link MariaDbSql}). */
  public boolean mysqlFamily() {
    return this == MARIADB || this == MYSQL;
  }

  /** True if an UPDATE can return the updated row ({@code RETURNING *}); else it is re-read. */
  public boolean updateReturns() {
    return this == POSTGRESQL;
  }

  /**
   * Warns if a commit that returned could still be lost by a crash: H2 writes commits to its file
   * only every WRITE_DELAY ms unless that is 0 (as in the URL of {@code JdbcStore.h2(dir)}).
   */
  public void warnIfCommitsLag(Handle h) {
    if (this != H2) {
      return;
    }
    String delay =
        h
            .createQuery(
                "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                    + " WHERE SETTING_NAME = 'WRITE_DELAY'")
            .mapTo(String.class)
            .stream()
            .filter(v -> !"0".equals(v))
            .findFirst()
            .orElse("0");
    if (!"0".equals(delay)) {
      log.warn(
          "H2 WRITE_DELAY is {} ms: a crash can lose commits of the last {} ms, so fires may"
              + " run twice or schedule changes be lost; add ;WRITE_DELAY=0 to the URL",
          delay,
          delay);
    }
  }

  /**
   * On H2, moves the run history's id sequence and the change feed's {@code change_seq} above the
   * highest value their tables hold when a crash left them behind, and says so (WARN); returns how
   * many it moved. Other dialects keep a sequence's mark ahead of every value handed out: nothing
   * to do, no query.
   *
   * <p>H2 (2.3) can lose a sequence's high-water mark at a SIGKILL while keeping rows that used
   * values above it: the session that spends the cache raises the mark in memory and writes it in a
   * commit of its own after that, and another session may take values under the new mark and commit
   * first. A restart then hands out those values again: every write-back inserting a reused history
   * id fails on the primary key until the sequence has passed them (seen in {@code H2KillProbe},
   * with H2's default cache of 32: after 4 kills of 56), and a change stamped with a reused {@code
   * change_seq} lies behind the cursors of the other instances of a cluster, which miss it (their
   * sweep finds an overdue job later; a tombstone fails on its primary key). The caches of 4,096
   * (schema versions 9 and 12) make the window rare; this check, one query, closes it. It runs at
   * {@code open()}, at each heartbeat of a clustered store (the H2 server may restart under live
   * instances) and after a duplicate key (a plain store over an H2 server).
   */
  public int repairSequencesAfterCrash(Handle h, String prefix) {
    if (this != H2) {
      return 0;
    }
    String runs = prefix + "runs";
    String changes = prefix + "change_seq";
    var found =
        h.createQuery(
                "SELECT (SELECT c.IDENTITY_BASE FROM INFORMATION_SCHEMA.COLUMNS c"
                    + " WHERE c.TABLE_SCHEMA = CURRENT_SCHEMA AND UPPER(c.TABLE_NAME) = :runs"
                    + " AND UPPER(c.COLUMN_NAME) = 'ID'), (SELECT MAX(id) FROM "
                    + runs
                    + "), (SELECT s.BASE_VALUE FROM INFORMATION_SCHEMA.SEQUENCES s"
                    + " WHERE s.SEQUENCE_SCHEMA = CURRENT_SCHEMA AND UPPER(s.SEQUENCE_NAME) ="
                    + " :changes), GREATEST(COALESCE((SELECT MAX(change_seq) FROM "
                    + prefix
                    + "jobs), 0), COALESCE((SELECT MAX(change_seq) FROM "
                    + prefix
                    + "deleted_jobs), 0))")
            .bind("runs", runs.toUpperCase(Locale.ROOT))
            .bind("changes", changes.toUpperCase(Locale.ROOT))
            .map(
                (r, ctx) ->
                    new Long[] {nullable(r, 1), nullable(r, 2), nullable(r, 3), r.getLong(4)})
            .one();
    int moved = 0;
    if (behind(found[0], found[1])
        && restart(h, runs, "ALTER TABLE " + runs + " ALTER COLUMN id", found[0], found[1])) {
      moved++;
    }
    if (behind(found[2], found[3])
        && restart(h, changes, "ALTER SEQUENCE " + changes, found[2], found[3])) {
      moved++;
    }
    return moved;
  }

  private static Long nullable(java.sql.ResultSet r, int column) throws SQLException {
    long v = r.getLong(column);
    return r.wasNull() ? null : v;
  }

  /** Whether a sequence whose next value is {@code next} would hand out {@code highest} again. */
  private static boolean behind(Long next, Long highest) {
    return next != null && highest != null && next <= highest;
  }

  /** Restarts a sequence above {@code highest} with {@code alter} (+ RESTART WITH); WARNs. */
  private static boolean restart(Handle h, String name, String alter, long next, long highest) {
    try {
      h.execute(alter + " RESTART WITH " + (highest + 1));
    } catch (org.jdbi.v3.core.JdbiException e) {
      log.warn(
          "H2: the sequence of {} is behind the values its table holds after a crash (next {},"
              + " highest {}) and could not be restarted ({}); writes fail or go unseen until it"
              + " passes {}",
          name,
          next,
          highest,
          e.toString(),
          highest);
      return false;
    }
    log.warn(
        "H2: the sequence of {} was behind the values its table holds after a crash (next {},"
            + " highest {}), an H2 race at a kill; restarted it at {}",
        name,
        next,
        highest,
        highest + 1);
    return true;
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
