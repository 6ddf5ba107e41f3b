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
// Unknown names under kairos. (a typo such as kairos.workes) and empty values fail the startup
// naming the property, instead of leaving the default in place unseen.
@ConfigurationProperties(prefix = "kairos", ignoreUnknownFields = false)
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

  /** How long start keeps retrying a store that fails to open (0: one attempt). */
  private Duration startupTimeout = Kairos.DEFAULT_STARTUP_TIMEOUT;

  /** Zone of cron jobs scheduled without one (default: the JVM's zone), e.g. Europe/Berlin. */
  private ZoneId defaultZone;

  /** This instance's name in run history and cluster mode (default: kairos- and a random id). */
  private String instanceId;

  /**
   * What to do at start with stored jobs whose handler no longer exists in the application (an
   * annotated method or Job bean removed from the code): warn, pause, delete or fail.
   */
  private RemovedJobs removedJobs = RemovedJobs.WARN;

  private final Store store = new Store();
  private final Cluster cluster = new Cluster();
  private final Metrics metrics = new Metrics();

  /**
   * Concurrency limits by name ({@code kairos.limits.<name>.max-concurrent}): a limit on the
   * handler of that name, or with {@code handlers} on a group of handlers sharing the permits.
   */
  private final java.util.Map<String, Limit> limits = new java.util.LinkedHashMap<>();

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

  /**
   * Store settings. One the chosen store has no use for is logged at WARN when set, and ignored
   * (see {@code KairosAutoConfiguration.kairosJobStore}).
   */
  public static class Store {
    /** Where jobs are stored. */
    private StoreType type = StoreType.AUTO;

    /**
     * The folder of the embedded H2 database (ignored, with a warning, when {@code auto} chose a
     * DataSource).
     */
    private Path h2Directory = Path.of("kairos-data");

    /**
     * Connections of the embedded H2 pool (H2 only: ignored, with a warning, with another store).
     */
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

    /**
     * The {@code kairos.store.type} property.
     *
     * @return the property value
     */
    public StoreType getType() {
      return type;
    }

    /**
     * Sets the {@code kairos.store.type} property.
     *
     * @param type the new value
     */
    public void setType(StoreType type) {
      this.type = type;
    }

    /**
     * The {@code kairos.store.h2-directory} property.
     *
     * @return the property value
     */
    public Path getH2Directory() {
      return h2Directory;
    }

    /**
     * Sets the {@code kairos.store.h2-directory} property.
     *
     * @param h2Directory the new value
     */
    public void setH2Directory(Path h2Directory) {
      this.h2Directory = h2Directory;
    }

    /**
     * The {@code kairos.store.pool-size} property.
     *
     * @return the property value
     */
    public int getPoolSize() {
      return poolSize;
    }

    /**
     * Sets the {@code kairos.store.pool-size} property.
     *
     * @param poolSize the new value
     */
    public void setPoolSize(int poolSize) {
      this.poolSize = poolSize;
    }

    /**
     * The {@code kairos.store.table-prefix} property.
     *
     * @return the property value
     */
    public String getTablePrefix() {
      return tablePrefix;
    }

    /**
     * Sets the {@code kairos.store.table-prefix} property.
     *
     * @param tablePrefix the new value
     */
    public void setTablePrefix(String tablePrefix) {
      this.tablePrefix = tablePrefix;
    }

    /**
     * The {@code kairos.store.create-schema} property.
     *
     * @return the property value
     */
    public boolean isCreateSchema() {
      return createSchema;
    }

    /**
     * Sets the {@code kairos.store.create-schema} property.
     *
     * @param createSchema the new value
     */
    public void setCreateSchema(boolean createSchema) {
      this.createSchema = createSchema;
    }

    /**
     * The {@code kairos.store.keep-completed} property.
     *
     * @return the property value
     */
    public boolean isKeepCompleted() {
      return keepCompleted;
    }

    /**
     * Sets the {@code kairos.store.keep-completed} property.
     *
     * @param keepCompleted the new value
     */
    public void setKeepCompleted(boolean keepCompleted) {
      this.keepCompleted = keepCompleted;
    }

    /**
     * The {@code kairos.store.history-per-job} property.
     *
     * @return the property value
     */
    public int getHistoryPerJob() {
      return historyPerJob;
    }

    /**
     * Sets the {@code kairos.store.history-per-job} property.
     *
     * @param historyPerJob the new value
     */
    public void setHistoryPerJob(int historyPerJob) {
      this.historyPerJob = historyPerJob;
    }

    /**
     * The {@code kairos.store.history-max-age} property.
     *
     * @return the property value; null if unset
     */
    public Duration getHistoryMaxAge() {
      return historyMaxAge;
    }

    /**
     * Sets the {@code kairos.store.history-max-age} property.
     *
     * @param historyMaxAge the new value
     */
    public void setHistoryMaxAge(Duration historyMaxAge) {
      this.historyMaxAge = historyMaxAge;
    }

    /**
     * The {@code kairos.store.start-mark-delay} property.
     *
     * @return the property value
     */
    public Duration getStartMarkDelay() {
      return startMarkDelay;
    }

    /**
     * Sets the {@code kairos.store.start-mark-delay} property.
     *
     * @param startMarkDelay the new value
     */
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

    /**
     * The {@code kairos.cluster.enabled} property.
     *
     * @return the property value
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets the {@code kairos.cluster.enabled} property.
     *
     * @param enabled the new value
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * The {@code kairos.cluster.lease} property.
     *
     * @return the property value
     */
    public Duration getLease() {
      return lease;
    }

    /**
     * Sets the {@code kairos.cluster.lease} property.
     *
     * @param lease the new value
     */
    public void setLease(Duration lease) {
      this.lease = lease;
    }

    /**
     * The {@code kairos.cluster.poll} property.
     *
     * @return the property value
     */
    public Duration getPoll() {
      return poll;
    }

    /**
     * Sets the {@code kairos.cluster.poll} property.
     *
     * @param poll the new value
     */
    public void setPoll(Duration poll) {
      this.poll = poll;
    }
  }

  /**
   * One concurrency limit ({@code dev.kairos.ConcurrencyLimit}): at most {@code max-concurrent}
   * runs at once of jobs whose handler is one of {@code handlers} (or the handler named like the
   * limit), across the cluster in cluster mode.
   */
  public static class Limit {
    /** Runs at once, 1 or more (required). */
    private int maxConcurrent;

    /** The handlers sharing the limit; empty for the one handler named like the limit. */
    private java.util.List<String> handlers = new java.util.ArrayList<>();

    /**
     * The {@code kairos.limits.<name>.max-concurrent} property.
     *
     * @return the property value
     */
    public int getMaxConcurrent() {
      return maxConcurrent;
    }

    /**
     * Sets the {@code kairos.limits.<name>.max-concurrent} property.
     *
     * @param maxConcurrent the new value
     */
    public void setMaxConcurrent(int maxConcurrent) {
      this.maxConcurrent = maxConcurrent;
    }

    /**
     * The {@code kairos.limits.<name>.handlers} property.
     *
     * @return the property value
     */
    public java.util.List<String> getHandlers() {
      return handlers;
    }

    /**
     * Sets the {@code kairos.limits.<name>.handlers} property.
     *
     * @param handlers the new value
     */
    public void setHandlers(java.util.List<String> handlers) {
      this.handlers = handlers;
    }
  }

  /** Micrometer settings (used when Micrometer and a MeterRegistry are present). */
  public static class Metrics {
    /** Whether Kairos meters are recorded. */
    private boolean enabled = true;

    /** Whether run meters carry the job key as a tag; turn off for many jobs. */
    private boolean keyTags = true;

    /**
     * The {@code kairos.metrics.enabled} property.
     *
     * @return the property value
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets the {@code kairos.metrics.enabled} property.
     *
     * @param enabled the new value
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * The {@code kairos.metrics.key-tags} property.
     *
     * @return the property value
     */
    public boolean isKeyTags() {
      return keyTags;
    }

    /**
     * Sets the {@code kairos.metrics.key-tags} property.
     *
     * @param keyTags the new value
     */
    public void setKeyTags(boolean keyTags) {
      this.keyTags = keyTags;
    }
  }

  /**
   * The {@code kairos.limits.*} properties, by limit name.
   *
   * @return the limits (modifiable, bound by Spring)
   */
  public java.util.Map<String, Limit> getLimits() {
    return limits;
  }

  /**
   * The {@code kairos.enabled} property.
   *
   * @return the property value
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Sets the {@code kairos.enabled} property.
   *
   * @param enabled the new value
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * The {@code kairos.workers} property.
   *
   * @return the property value
   */
  public int getWorkers() {
    return workers;
  }

  /**
   * Sets the {@code kairos.workers} property.
   *
   * @param workers the new value
   */
  public void setWorkers(int workers) {
    this.workers = workers;
  }

  /**
   * The {@code kairos.look-ahead} property.
   *
   * @return the property value
   */
  public Duration getLookAhead() {
    return lookAhead;
  }

  /**
   * Sets the {@code kairos.look-ahead} property.
   *
   * @param lookAhead the new value
   */
  public void setLookAhead(Duration lookAhead) {
    this.lookAhead = lookAhead;
  }

  /**
   * The {@code kairos.window-size} property.
   *
   * @return the property value
   */
  public int getWindowSize() {
    return windowSize;
  }

  /**
   * Sets the {@code kairos.window-size} property.
   *
   * @param windowSize the new value
   */
  public void setWindowSize(int windowSize) {
    this.windowSize = windowSize;
  }

  /**
   * The {@code kairos.grace-period} property.
   *
   * @return the property value
   */
  public Duration getGracePeriod() {
    return gracePeriod;
  }

  /**
   * Sets the {@code kairos.grace-period} property.
   *
   * @param gracePeriod the new value
   */
  public void setGracePeriod(Duration gracePeriod) {
    this.gracePeriod = gracePeriod;
  }

  /**
   * The {@code kairos.startup-timeout} property.
   *
   * @return the property value
   */
  public Duration getStartupTimeout() {
    return startupTimeout;
  }

  /**
   * Sets the {@code kairos.startup-timeout} property.
   *
   * @param startupTimeout the new value
   */
  public void setStartupTimeout(Duration startupTimeout) {
    this.startupTimeout = startupTimeout;
  }

  /**
   * The {@code kairos.default-zone} property.
   *
   * @return the property value; null if unset
   */
  public ZoneId getDefaultZone() {
    return defaultZone;
  }

  /**
   * Sets the {@code kairos.default-zone} property.
   *
   * @param defaultZone the new value
   */
  public void setDefaultZone(ZoneId defaultZone) {
    this.defaultZone = defaultZone;
  }

  /**
   * The {@code kairos.instance-id} property.
   *
   * @return the property value; null if unset
   */
  public String getInstanceId() {
    return instanceId;
  }

  /**
   * Sets the {@code kairos.instance-id} property.
   *
   * @param instanceId the new value
   */
  public void setInstanceId(String instanceId) {
    this.instanceId = instanceId;
  }

  /**
   * The {@code kairos.removed-jobs} property.
   *
   * @return the property value
   */
  public RemovedJobs getRemovedJobs() {
    return removedJobs;
  }

  /**
   * Sets the {@code kairos.removed-jobs} property.
   *
   * @param removedJobs the new value
   */
  public void setRemovedJobs(RemovedJobs removedJobs) {
    this.removedJobs = removedJobs;
  }

  /**
   * The {@code kairos.store.*} settings.
   *
   * @return the store settings
   */
  public Store getStore() {
    return store;
  }

  /**
   * The {@code kairos.cluster.*} settings.
   *
   * @return the cluster settings
   */
  public Cluster getCluster() {
    return cluster;
  }

  /**
   * The {@code kairos.metrics.*} settings.
   *
   * @return the metrics settings
   */
  public Metrics getMetrics() {
    return metrics;
  }
}
