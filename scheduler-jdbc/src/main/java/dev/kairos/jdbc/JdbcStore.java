package dev.kairos.jdbc;

import dev.kairos.StoreException;
import dev.kairos.UnreadableJobException;
import dev.kairos.jdbc.internal.ChangeFeed;
import dev.kairos.jdbc.internal.ConnectionSource;
import dev.kairos.jdbc.internal.JdbcJobStore;
import dev.kairos.jdbc.internal.Migrations;
import dev.kairos.jdbc.internal.StoreSettings;
import dev.kairos.spi.ClusterStore;
import dev.kairos.spi.JobRules;
import dev.kairos.spi.JobStore;
import dev.kairos.spi.StoreSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * A job store in a relational database: an embedded H2 file, PostgreSQL or MariaDB. Jobs, their
 * schedule state and their run history survive restarts and crashes: every store call that returned
 * has committed its change.
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.h2(Path.of("data"));       // embedded, pool made and closed here
 * JdbcStore store = JdbcStore.of(dataSource);             // your pool; never closed by the store
 * JdbcStore store = JdbcStore.builder()
 *     .url("jdbc:postgresql://db/app").user("app").password(secret)
 *     .tablePrefix("kairos_").historyPerJob(50).keepCompleted(false)
 *     .clustered(true)                                     // several instances share it
 *     .build();
 * Scheduler scheduler = Kairos.builder().store(store)...build(); // opens and closes it
 * }</pre>
 *
 * <p>This class is what an application configures; the store SPI ({@link ClusterStore}: upsert,
 * due, claim, ...) is not on it. The scheduler, and administration tools, reach that through {@link
 * #jobStore()}.
 *
 * <p>Tables ({@code <prefix>jobs}, {@code <prefix>runs}, {@code <prefix>backfill}, {@code
 * <prefix>schema_history} (Flyway), and for cluster mode {@code <prefix>instances}, {@code
 * <prefix>deleted_jobs}) are created or upgraded by {@link #open()}, unless {@link
 * Builder#createSchema(boolean) createSchema(false)}: the DDL ships as {@code
 * dev/kairos/jdbc/{h2,postgresql}/V<n>__*.sql}.
 *
 * <p>A row that does not map to a job (edited by hand, say, to an unknown schedule kind), or maps
 * to one that breaks {@link JobRules} (a zero period, a retry without its fire time, a key with a
 * NUL, ...), is <em>unreadable</em>: logged at WARN once and skipped by {@link JobStore#due} and
 * {@link JobStore#findAll}; {@link JobStore#find} throws an {@link UnreadableJobException} naming
 * its key; {@link JobStore#unreadable()} lists it. The store never deletes or rewrites such a row
 * by itself; {@link JobStore#upsert} of its key replaces its definition, {@link JobStore#delete}
 * deletes it.
 *
 * <p>Several scheduler instances (processes) can share one PostgreSQL or MariaDB database in
 * <b>cluster mode</b>, {@link Builder#clustered(boolean) clustered(true)}: each fire is claimed
 * before it runs, so it runs on one live instance; a fire whose instance died is re-run elsewhere
 * once its lease expires; changes made through any instance reach the others through a change feed
 * and LISTEN/NOTIFY (PostgreSQL; MariaDB is polled). Leases and liveness are judged by the
 * database's clock. Every instance sharing the tables must be clustered.
 */
public final class JdbcStore implements StoreSource, AutoCloseable {
  /*
   * The store's implementation of the SPI is internal.JdbcJobStore (its design notes are there);
   * this class only configures it, and hands it out as jobStore(). So the SPI's methods are not
   * on the public face of the class every user touches (PublishedSurfaceTest pins that face).
   */

  /** Default prefix of the table names. */
  public static final String DEFAULT_TABLE_PREFIX = "kairos_";

  /** Default number of runs kept per job in the history, as in {@code InMemoryStore}. */
  public static final int DEFAULT_HISTORY_PER_JOB = 100;

  /** Default size of the connection pool the store makes for a URL or an H2 folder. */
  public static final int DEFAULT_POOL_SIZE = 8;

  /**
   * Default start-mark delay: zero, every run is marked RUNNING before its job runs (sharing a
   * commit with other marks and write-backs), so a fire cut short by a crash, however early, is
   * re-run flagged {@code recovery()}.
   */
  public static final Duration DEFAULT_START_MARK_DELAY = Duration.ZERO;

  private final JdbcJobStore store;

  private JdbcStore(JdbcJobStore store) {
    this.store = store;
  }

  /**
   * A store in an embedded H2 database file {@code kairos.mv.db} in {@code dir} (created if
   * needed), with a pool of {@value #DEFAULT_POOL_SIZE} connections that {@link #close()} closes.
   * Commits are written to the file before they return (H2's WRITE_DELAY is 0), so a crash of the
   * process loses nothing that returned.
   *
   * @param dir the folder holding the database file
   * @return the store, not yet open
   */
  public static JdbcStore h2(Path dir) {
    return builder().h2(dir).build();
  }

  /**
   * A store over the user's data source, H2, PostgreSQL or MariaDB (detected at {@link #open()}),
   * which the store never closes.
   *
   * @param dataSource the database to use, left open by the store
   * @return the store, not yet open
   */
  public static JdbcStore of(DataSource dataSource) {
    return builder().dataSource(dataSource).build();
  }

  /**
   * A builder with the defaults above: prefix "kairos_", schema created, completed jobs kept.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The store SPI over this database, for the scheduler ({@code Kairos.builder().store(this)} takes
   * it from here) and for administration tools that read jobs, history, claims and instances. It is
   * one object for the life of this store: opening or closing either opens or closes both. Use the
   * {@code Scheduler} API, not this, to change jobs while a scheduler runs over the store.
   *
   * @return the store's implementation of the SPI, in cluster mode if built {@code clustered(true)}
   */
  @Override
  public ClusterStore jobStore() {
    return store;
  }

  /**
   * Opens the pool, detects the dialect, and creates or upgrades the tables (or, with {@code
   * createSchema(false)}, checks that they exist at the right version). Idempotent; the first use
   * of the {@link #jobStore()} opens the store too, and a scheduler opens it at {@code start()}.
   *
   * @throws StoreException if the database is unreachable, unsupported or its tables unfit
   */
  public void open() {
    store.open();
  }

  /**
   * Closes the pool the store made, if any (never a user's data source), and in cluster mode the
   * connection listening for changes. Idempotent; a scheduler over the store calls it when it
   * closes.
   */
  @Override
  public void close() {
    store.close();
  }

  /**
   * The schema version this code creates and works with; {@link #open()} upgrades older tables to
   * it and refuses newer ones.
   *
   * @return the schema version of this code
   */
  public static int schemaVersion() {
    return Migrations.latest();
  }

  /** Names the database and the table prefix, as the scheduler's start-up log shows it. */
  @Override
  public String toString() {
    return store.toString();
  }

  // ---- builder -------------------------------------------------------------------------------

  /**
   * Configures a {@link JdbcStore}. Give exactly one source of connections: {@link #h2(Path)},
   * {@link #url(String)} (with {@link #user} and {@link #password}), or {@link #dataSource}. Every
   * method validates its argument at once.
   */
  public static final class Builder {
    private Path h2Dir;
    private String url;
    private DataSource dataSource;
    private BooleanSupplier callerTransactionOpen;
    private String user;
    private String password;
    private Integer poolSize;
    private String tablePrefix = DEFAULT_TABLE_PREFIX;
    private boolean createSchema = true;
    private boolean keepCompleted = true;
    private int historyPerJob = DEFAULT_HISTORY_PER_JOB;
    private Duration historyMaxAge;
    private Duration startMarkDelay = DEFAULT_START_MARK_DELAY;
    private boolean clustered;
    private Duration changeSettle = ChangeFeed.SETTLE;
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,30}");

    private Builder() {}

    /**
     * An embedded H2 database file in this folder (see {@link JdbcStore#h2(Path)}).
     *
     * @param dir the folder of the database file, created if needed
     * @return this builder
     */
    public Builder h2(Path dir) {
      if (dir == null) {
        throw new IllegalArgumentException("H2 folder is null");
      }
      if (dir.toAbsolutePath().toString().contains(";")) {
        throw new IllegalArgumentException("H2 folder must not contain ';': " + dir);
      }
      requireNoSource("h2(" + dir + ")");
      this.h2Dir = dir.toAbsolutePath().normalize();
      return this;
    }

    /**
     * A JDBC URL of H2, PostgreSQL or MariaDB; the store makes a pool for it and closes it. Its
     * driver must be on the class path: {@code open()} names the artifact to add if it is not.
     *
     * @param url the JDBC URL, starting with {@code jdbc:}
     * @return this builder
     */
    public Builder url(String url) {
      if (url == null || !url.startsWith("jdbc:")) {
        throw new IllegalArgumentException("JDBC URL must start with 'jdbc:': " + url);
      }
      requireNoSource("url(" + redact(url) + ")");
      this.url = url;
      return this;
    }

    /**
     * The user for {@link #url(String)}.
     *
     * @param user the database user, or null for none
     * @return this builder
     */
    public Builder user(String user) {
      this.user = user;
      return this;
    }

    /**
     * The password for {@link #url(String)}.
     *
     * @param password the database password, or null for none
     * @return this builder
     */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * Connections the store makes for a URL or H2 folder (default {@value #DEFAULT_POOL_SIZE}).
     *
     * @param poolSize the pool's maximum connections, at least 1
     * @return this builder
     */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1) {
        throw new IllegalArgumentException("pool size must be at least 1: " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /**
     * The user's own data source, H2, PostgreSQL or MariaDB; never closed by the store. A driver's
     * plain data source, which opens a connection per call, is wrapped in a pool the store makes.
     *
     * @param dataSource the data source to use
     * @return this builder
     */
    public Builder dataSource(DataSource dataSource) {
      if (dataSource == null) {
        throw new IllegalArgumentException("data source is null");
      }
      requireNoSource("dataSource(" + dataSource + ")");
      this.dataSource = dataSource;
      return this;
    }

    /**
     * How the store recognises a transaction of the application's that its statements should join:
     * with a data source that hands out the connection of the calling thread's open transaction
     * (Spring's {@code TransactionAwareDataSourceProxy}; the Spring Boot starter sets both), a test
     * that is true while such a transaction is open. A store call that gets a connection with
     * auto-commit off while the test is true runs inside that transaction, which the application
     * commits or rolls back. Every other connection with auto-commit off (without this test: every
     * one, as from a pool configured with {@code autoCommit=false}) is switched to auto-commit for
     * the store's call, which commits its own work, and switched back before it is returned.
     *
     * @param callerTransactionOpen true while the calling thread has such a transaction open
     * @return this builder
     */
    public Builder joinCallerTransactions(BooleanSupplier callerTransactionOpen) {
      if (callerTransactionOpen == null) {
        throw new IllegalArgumentException("callerTransactionOpen is null");
      }
      this.callerTransactionOpen = callerTransactionOpen;
      return this;
    }

    /**
     * Prefix of every table and index name (default {@value #DEFAULT_TABLE_PREFIX}): a letter or
     * underscore, then up to 30 letters, digits or underscores.
     *
     * @param prefix the table name prefix
     * @return this builder
     */
    public Builder tablePrefix(String prefix) {
      if (prefix == null || !IDENTIFIER.matcher(prefix).matches()) {
        throw new IllegalArgumentException(
            "table prefix must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]{0,30}): '"
                + prefix
                + "'");
      }
      this.tablePrefix = prefix;
      return this;
    }

    /**
     * Whether {@code open()} creates and upgrades the tables (default true). With false, run the
     * DDL yourself; {@code open()} then only checks the schema version and fails clearly if the
     * tables are missing or out of date.
     *
     * @param createSchema false to manage the DDL yourself
     * @return this builder
     */
    public Builder createSchema(boolean createSchema) {
      this.createSchema = createSchema;
      return this;
    }

    /**
     * Whether a one-shot job that has run stays, COMPLETE (default true), or is deleted.
     *
     * @param keepCompleted false to delete one-shot jobs once they have run
     * @return this builder
     */
    public Builder keepCompleted(boolean keepCompleted) {
      this.keepCompleted = keepCompleted;
      return this;
    }

    /**
     * Runs kept per job (default {@value #DEFAULT_HISTORY_PER_JOB}; 0 keeps no history).
     *
     * @param historyPerJob the most runs kept per job, 0 or more
     * @return this builder
     */
    public Builder historyPerJob(int historyPerJob) {
      if (historyPerJob < 0) {
        throw new IllegalArgumentException(
            "history per job must not be negative: " + historyPerJob);
      }
      this.historyPerJob = historyPerJob;
      return this;
    }

    /**
     * Also deletes runs that ended longer than this before the job's newest run (default: kept up
     * to {@link #historyPerJob}). Applied when the history is trimmed, every 10 runs of a job.
     *
     * @param maxAge the longest age of a kept run, positive
     * @return this builder
     */
    public Builder historyMaxAge(Duration maxAge) {
      if (maxAge == null || maxAge.isNegative() || maxAge.isZero()) {
        throw new IllegalArgumentException("history max age must be positive: " + maxAge);
      }
      this.historyMaxAge = maxAge;
      return this;
    }

    /**
     * How long a run must last before the store marks it RUNNING (default {@link
     * #DEFAULT_START_MARK_DELAY}, zero: every run is marked before its job starts, in a commit
     * shared with other marks and write-backs). The mark makes the re-run after a crash carry
     * {@code recovery() == true}. A positive delay saves the marks of shorter runs, at a price: a
     * crash within the delay still re-runs the fire, but without the flag. A run marked again
     * because its job was changed in the application's transaction ({@link
     * #joinCallerTransactions}) is marked at once, in that transaction, whatever the delay.
     *
     * @param delay how long a run lasts before it is marked, zero or more
     * @return this builder
     */
    public Builder startMarkDelay(Duration delay) {
      if (delay == null || delay.isNegative()) {
        throw new IllegalArgumentException("start mark delay must not be negative: " + delay);
      }
      this.startMarkDelay = delay;
      return this;
    }

    /**
     * Cluster mode (default false): several scheduler instances, in one process or many, share the
     * tables, and each fire runs on one live instance. Every instance sharing the tables must be
     * clustered. It needs a database several processes can reach: PostgreSQL (which also notifies
     * the instances of changes at once), MariaDB (polled every {@code clusterPoll}), or an H2
     * server ({@code jdbc:h2:tcp:...}, {@code AUTO_SERVER=TRUE}) or in-memory database ({@code
     * jdbc:h2:mem:...}, one JVM), which are polled. An embedded H2 file ({@link #h2(Path)}, {@code
     * jdbc:h2:file:...}) is refused: only one process can open it, so there is nothing to share.
     *
     * @param clustered true to share the tables with other instances
     * @return this builder
     */
    public Builder clustered(boolean clustered) {
      this.clustered = clustered;
      return this;
    }

    /** For tests: how long after its stamp a change counts as settled (see ChangeFeed). */
    Builder changeSettle(Duration settle) {
      this.changeSettle = settle;
      return this;
    }

    /**
     * The store; nothing is opened until {@link JdbcStore#open()}.
     *
     * @return the configured store, not yet open
     */
    public JdbcStore build() {
      if (h2Dir == null && url == null && dataSource == null) {
        throw new IllegalStateException("no database: call h2(dir), url(...) or dataSource(...)");
      }
      if (clustered && (h2Dir != null || isEmbeddedH2(url))) {
        throw new IllegalStateException(
            "cluster mode needs a database several processes share (PostgreSQL, or an H2 server"
                + " URL), not the embedded H2 file "
                + (h2Dir != null ? h2Dir.toString() : redact(url)));
      }
      if (url == null && (user != null || password != null)) {
        throw new IllegalStateException("user and password apply to url(...) only");
      }
      if (callerTransactionOpen != null && dataSource == null) {
        throw new IllegalStateException(
            "joinCallerTransactions applies to a user's data source (dataSource(...)) only");
      }
      if (dataSource != null && poolSize != null) {
        throw new IllegalStateException("pool size does not apply to a user's data source");
      }
      int pool = poolSize == null ? DEFAULT_POOL_SIZE : poolSize;
      ConnectionSource source;
      if (dataSource != null) {
        source = ConnectionSource.of(dataSource, DEFAULT_POOL_SIZE).joining(callerTransactionOpen);
      } else if (h2Dir != null) {
        Path file = h2Dir.resolve("kairos");
        source = ConnectionSource.h2File(h2Url(file), file, pool, "h2 file " + file);
      } else {
        source = ConnectionSource.pool(url, user, password, pool, redact(url));
      }
      return new JdbcStore(
          new JdbcJobStore(
              source,
              new StoreSettings(
                  tablePrefix,
                  createSchema,
                  keepCompleted,
                  historyPerJob,
                  historyMaxAge,
                  clustered,
                  changeSettle),
              startMarkDelay,
              Builder::isEmbeddedH2));
    }

    /**
     * True for the URL of an H2 database file opened in this process: not {@code tcp:} or {@code
     * ssl:} (a server), not {@code mem:} (in this JVM only, but shared by its stores), not {@code
     * AUTO_SERVER=TRUE} (other processes reach it through the first one's server). Null: false.
     */
    static boolean isEmbeddedH2(String url) {
      if (url == null || !url.regionMatches(true, 0, "jdbc:h2:", 0, 8)) {
        return false;
      }
      String rest = url.substring(8).toLowerCase(Locale.ROOT);
      return !(rest.startsWith("tcp:")
          || rest.startsWith("ssl:")
          || rest.startsWith("mem:")
          || rest.replace(" ", "").contains(";auto_server=true"));
    }

    /**
     * The URL of {@link #h2(Path)}'s database file.
     *
     * <p>async: H2's file system over AsynchronousFileChannel, which an interrupt does not close.
     * Over the default one, a thread interrupted inside any store call (a worker interrupted at
     * close, a user's request thread cancelled) closes the FileChannel and with it the whole
     * database for every thread until the process restarts.
     *
     * <p>WRITE_DELAY=0: each commit is written to the file before it returns, so it survives a
     * kill. MAX_COMPACT_TIME=0: no file compaction when the last connection closes; H2 2.3's
     * compact-on-close is where its reported assertion failures and lost chunks come from
     * (h2database issues 4086, 4247).
     *
     * <p>RETENTION_TIME=0: a chunk no longer in use is overwritten at once instead of kept for 45
     * s. Every commit writes a new chunk (about 18 KB here), and WRITE_DELAY=0 stops H2's
     * background thread, the only one that compacts, so with the default retention the file grew by
     * every commit: 179 MB after 10,000 write-backs, 155 MB after 8,500 fires. With 0 it levels off
     * at about 22 MB ({@code H2FileSizeTest}, {@code H2Growth} in benchmarks). A process crash
     * (SIGKILL) loses nothing either way, as the operating system's page cache survives it
     * (H2CrashTest), once open() has mended the one state 0 adds: H2 may overwrite the chunk its
     * file header names before it rewrites the header, and a kill in between leaves a header a
     * plain open cannot follow ({@code H2HeaderRepair}). The retention guards against an OS crash
     * or power loss: H2 never forces a commit to the disk (no fsync), so such a crash loses recent
     * commits with either setting, and with 0 it may also damage older data in the file. Put the
     * folder on storage whose writes survive power loss, or use PostgreSQL, where that matters.
     *
     * <p>ANALYZE_AUTO=0: H2 otherwise runs ANALYZE inside the COMMIT that crosses its change count
     * (2,000 rows, then doubling), after the commit itself; with RETENTION_TIME=0 and other commits
     * going on it can fail there ("Chunk ... not found"), reporting a committed change as failed.
     * The store's queries have the same plans without statistics: their indexes decide.
     */
    static String h2Url(Path file) {
      return "jdbc:h2:async:"
          + file
          + ";WRITE_DELAY=0;MAX_COMPACT_TIME=0;RETENTION_TIME=0;ANALYZE_AUTO=0;DB_CLOSE_ON_EXIT=FALSE";
    }

    private void requireNoSource(String attempted) {
      if (h2Dir != null || url != null || dataSource != null) {
        throw new IllegalStateException(
            "the database is already set; cannot also use " + attempted);
      }
    }

    private static String redact(String url) {
      return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
  }
}
