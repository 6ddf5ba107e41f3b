package dev.kairos.spring;

import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code kairos.*} properties: one for each scheduler and store builder setting. Defaults are
 * those of {@link Kairos} and {@link JdbcStore}; the README's "Spring Boot" section lists them.
 */
@ConfigurationProperties(prefix = "kairos")
public class KairosProperties {
  /** Whether the starter creates and starts a scheduler. */
  private boolean enabled = true;

  /** Worker threads, the most runs at once. */
  private int workers = Kairos.DEFAULT_WORKERS;

  /** How far ahead due jobs are loaded from the store into memory. */
  private Duration lookAhead = Kairos.DEFAULT_LOOK_AHEAD;

  /** The most jobs loaded into memory per look-ahead window. */
  private int windowSize = Kairos.DEFAULT_WINDOW_SIZE;

  /** How long shutdown waits for running jobs before interrupting them. */
  private Duration gracePeriod = Kairos.DEFAULT_GRACE_PERIOD;

  /** Zone of cron jobs scheduled without one (default: the JVM's zone), e.g. Europe/Berlin. */
  private ZoneId defaultZone;

  /** This instance's name in run history and cluster mode (default: kairos- and a random id). */
  private String instanceId;

  /**
   * What to do at start with stored jobs whose handler no longer exists in the application (a
   * {@code @KairosScheduled} method or {@code Job} bean removed from the code).
   */
  private RemovedJobs removedJobs = RemovedJobs.WARN;

  private final Store store = new Store();
  private final Cluster cluster = new Cluster();
  private final Metrics metrics = new Metrics();

  /** What the starter does with stored jobs whose handler is gone. */
  public enum RemovedJobs {
    /** Log each at WARN and leave it (the default: another instance may still have the code). */
    WARN,
    /** Pause each, logging it: reversible with {@code resume}. */
    PAUSE,
    /** Delete each, logging it. */
    DELETE,
    /** Fail the application start, naming the jobs. */
    FAIL
  }

  /** Where jobs are stored. */
  public enum StoreType {
    /** The application's DataSource if there is one, else embedded H2. */
    AUTO,
    /** The application's DataSource; fails without one. */
    DATASOURCE,
    /** An embedded H2 database in {@code kairos.store.h2-directory}. */
    H2,
    /** In memory: nothing survives a restart. */
    MEMORY
  }

  /** Store settings. */
  public static class Store {
    /** Where jobs are stored. */
    private StoreType type = StoreType.AUTO;

    /** The folder of the embedded H2 database. */
    private Path h2Directory = Path.of("kairos-data");

    /** Connections of the embedded H2 pool. */
    private int poolSize = JdbcStore.DEFAULT_POOL_SIZE;

    /** Prefix of every Kairos table and index name. */
    private String tablePrefix = JdbcStore.DEFAULT_TABLE_PREFIX;

    /** Whether the store creates and upgrades its tables at start. */
    private boolean createSchema = true;

    /** Whether one-shot jobs that have run stay in the store as COMPLETE. */
    private boolean keepCompleted = true;

    /** Runs kept in the history of each job. */
    private int historyPerJob = JdbcStore.DEFAULT_HISTORY_PER_JOB;

    /** Also delete runs older than this before a job's newest run (default: keep by count). */
    private Duration historyMaxAge;

    /** How long a run lasts before the store marks it running (crash recovery flag). */
    private Duration startMarkDelay = JdbcStore.DEFAULT_START_MARK_DELAY;

    public StoreType getType() {
      return type;
    }

    public void setType(StoreType type) {
      this.type = type;
    }

    public Path getH2Directory() {
      return h2Directory;
    }

    public void setH2Directory(Path h2Directory) {
      this.h2Directory = h2Directory;
    }

    public int getPoolSize() {
      return poolSize;
    }

    public void setPoolSize(int poolSize) {
      this.poolSize = poolSize;
    }

    public String getTablePrefix() {
      return tablePrefix;
    }

    public void setTablePrefix(String tablePrefix) {
      this.tablePrefix = tablePrefix;
    }

    public boolean isCreateSchema() {
      return createSchema;
    }

    public void setCreateSchema(boolean createSchema) {
      this.createSchema = createSchema;
    }

    public boolean isKeepCompleted() {
      return keepCompleted;
    }

    public void setKeepCompleted(boolean keepCompleted) {
      this.keepCompleted = keepCompleted;
    }

    public int getHistoryPerJob() {
      return historyPerJob;
    }

    public void setHistoryPerJob(int historyPerJob) {
      this.historyPerJob = historyPerJob;
    }

    public Duration getHistoryMaxAge() {
      return historyMaxAge;
    }

    public void setHistoryMaxAge(Duration historyMaxAge) {
      this.historyMaxAge = historyMaxAge;
    }

    public Duration getStartMarkDelay() {
      return startMarkDelay;
    }

    public void setStartMarkDelay(Duration startMarkDelay) {
      this.startMarkDelay = startMarkDelay;
    }
  }

  /** Cluster mode settings. */
  public static class Cluster {
    /** Whether several instances share the store, each fire running on one of them. */
    private boolean enabled;

    /** How long a claimed fire holds without renewal; a dead instance's fires rerun after it. */
    private Duration lease = Kairos.DEFAULT_CLUSTER_LEASE;

    /** How often the store's change feed is polled when the database cannot notify. */
    private Duration poll = Kairos.DEFAULT_CLUSTER_POLL;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }

    public Duration getPoll() {
      return poll;
    }

    public void setPoll(Duration poll) {
      this.poll = poll;
    }
  }

  /** Micrometer settings (used when Micrometer and a MeterRegistry are present). */
  public static class Metrics {
    /** Whether Kairos meters are recorded. */
    private boolean enabled = true;

    /** Whether run meters carry the job key as a tag; turn off for many jobs. */
    private boolean keyTags = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isKeyTags() {
      return keyTags;
    }

    public void setKeyTags(boolean keyTags) {
      this.keyTags = keyTags;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
  }

  public Duration getLookAhead() {
    return lookAhead;
  }

  public void setLookAhead(Duration lookAhead) {
    this.lookAhead = lookAhead;
  }

  public int getWindowSize() {
    return windowSize;
  }

  public void setWindowSize(int windowSize) {
    this.windowSize = windowSize;
  }

  public Duration getGracePeriod() {
    return gracePeriod;
  }

  public void setGracePeriod(Duration gracePeriod) {
    this.gracePeriod = gracePeriod;
  }

  public ZoneId getDefaultZone() {
    return defaultZone;
  }

  public void setDefaultZone(ZoneId defaultZone) {
    this.defaultZone = defaultZone;
  }

  public String getInstanceId() {
    return instanceId;
  }

  public void setInstanceId(String instanceId) {
    this.instanceId = instanceId;
  }

  public RemovedJobs getRemovedJobs() {
    return removedJobs;
  }

  public void setRemovedJobs(RemovedJobs removedJobs) {
    this.removedJobs = removedJobs;
  }

  public Store getStore() {
    return store;
  }

  public Cluster getCluster() {
    return cluster;
  }

  public Metrics getMetrics() {
    return metrics;
  }
}
