package dev.kairos.spring;

import dev.kairos.ConcurrencyLimit;
import dev.kairos.Scheduler;
import dev.kairos.SchedulerListener;
import dev.kairos.engine.InMemoryStore;
import dev.kairos.engine.Kairos;
import dev.kairos.jdbc.JdbcStore;
import dev.kairos.spi.StoreSource;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * A Kairos {@link Scheduler} from the {@code kairos.*} properties, over the application's
 * DataSource (never closed by Kairos), an embedded H2 database, or memory; with every {@link
 * dev.kairos.Job} bean and {@link KairosScheduled} method as a handler, every {@link
 * SchedulerListener} bean as a listener, and {@link KairosCustomizer} beans applied last.
 *
 * <p>A {@code Scheduler} bean of the application's replaces the starter's scheduler and store; the
 * starter then only starts and closes it (see {@link #kairosLifecycle}).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
    })
@Conditional(OnEnabled.Scheduler.class)
@EnableConfigurationProperties(KairosProperties.class)
public class KairosAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(KairosAutoConfiguration.class);

  /**
   * The store chosen by {@code kairos.store.type}; the scheduler opens and closes it. A store bean
   * of the application's (a {@code JdbcStore}, or any {@code JobStore}) replaces it. With a {@code
   * Scheduler} bean of the application's it is not made: only the starter's scheduler uses it.
   *
   * <p>A {@code kairos.store.*} property set that the chosen store has no use for is logged at
   * WARN, naming it, and ignored: with {@code memory} all but {@code keep-completed} and {@code
   * history-per-job}; on the application's DataSource {@code pool-size}, and {@code h2-directory}
   * when {@code auto} chose the DataSource. An explicit {@code datasource} or {@code memory} leaves
   * {@code h2-directory} be, so a shared configuration may keep it for the profiles that use H2.
   *
   * @param properties the {@code kairos.*} properties
   * @param dataSource the application's data source, used if there is exactly one
   * @param environment tells which properties are set, not just defaulted
   * @return the store
   */
  // Evaluated before kairosScheduler below is registered: only the application's Scheduler counts.
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean({StoreSource.class, Scheduler.class})
  public StoreSource kairosJobStore(
      KairosProperties properties, ObjectProvider<DataSource> dataSource, Environment environment) {
    KairosProperties.Store p = properties.getStore();
    DataSource ds = dataSource.getIfUnique();
    switch (storeType(properties, ds)) {
      case MEMORY:
        if (properties.getCluster().isEnabled()) {
          throw new IllegalStateException(
              "kairos.cluster.enabled=true needs a store several instances share; "
                  + "kairos.store.type=memory is one process's memory");
        }
        warnUnused(
            environment,
            List.of(
                "kairos.store.pool-size",
                "kairos.store.table-prefix",
                "kairos.store.create-schema",
                "kairos.store.history-max-age",
                "kairos.store.start-mark-delay"),
            "kairos.store.type=memory keeps the jobs in this process's memory, without a database;"
                + " remove it, or choose kairos.store.type=h2 or datasource");
        log.info("Kairos store: in memory (jobs do not survive a restart)");
        InMemoryStore[] memory = new InMemoryStore[1];
        set(
            "kairos.store.history-per-job",
            p.getHistoryPerJob(),
            n -> memory[0] = new InMemoryStore(n, p.isKeepCompleted()));
        return memory[0];
      case DATASOURCE:
        if (ds == null) {
          throw new IllegalStateException(
              "kairos.store.type=datasource but the application has no unique DataSource bean");
        }
        String chose = "kairos.store.type=" + p.getType().name().toLowerCase(java.util.Locale.ROOT);
        String instead = "; remove it, or set kairos.store.type=h2 for the embedded database";
        warnUnused(
            environment,
            List.of("kairos.store.pool-size"),
            chose
                + " stores the jobs in the application's DataSource, whose connections its own"
                + " pool gives (spring.datasource.*)"
                + instead);
        if (p.getType() == KairosProperties.StoreType.AUTO) {
          warnUnused(
              environment,
              List.of("kairos.store.h2-directory"),
              chose
                  + " stores the jobs in the application's DataSource, not in an embedded H2"
                  + " database"
                  + instead);
        }
        if (!SPRING_JDBC) {
          log.info(
              "Kairos store: the application's DataSource (no spring-jdbc: not transactional)");
          return jdbc(p, properties.getCluster()).dataSource(ds).build();
        }
        log.info("Kairos store: the application's DataSource, in the caller's transactions");
        return jdbc(p, properties.getCluster())
            .dataSource(SpringTransactions.joining(ds))
            .joinCallerTransactions(SpringTransactions.openOn(ds))
            .build();
      default:
        log.info("Kairos store: embedded H2 in {}", p.getH2Directory().toAbsolutePath());
        JdbcStore.Builder h2 = jdbc(p, properties.getCluster());
        set("kairos.store.h2-directory", p.getH2Directory(), h2::h2);
        set("kairos.store.pool-size", p.getPoolSize(), h2::poolSize);
        return h2.build();
    }
  }

  /**
   * Logs at WARN each of {@code names} that is set (whatever its value, a default included), naming
   * it, its value and {@code why} it does not apply. A warning, not a failure: a shared
   * configuration may hold settings for the store another profile or a test chooses (a test's
   * {@code kairos.store.type=memory} over the application's H2 settings).
   */
  private static void warnUnused(Environment environment, List<String> names, String why) {
    Binder binder = Binder.get(environment);
    for (String name : names) {
      binder.bind(name, String.class).ifBound(value -> warnIgnored(name, value, why));
    }
  }

  /** Logs at WARN that {@code name=value} does not apply and is ignored, and {@code why}. */
  private static void warnIgnored(String name, Object value, String why) {
    log.warn("{}={} does not apply and is ignored: {}", name, value, why);
  }

  /** Every {@code kairos.store.*} property, and the one store setting outside it. */
  private static final List<String> STORE_PROPERTIES =
      List.of(
          "kairos.store.type",
          "kairos.store.h2-directory",
          "kairos.store.pool-size",
          "kairos.store.table-prefix",
          "kairos.store.create-schema",
          "kairos.store.keep-completed",
          "kairos.store.history-per-job",
          "kairos.store.history-max-age",
          "kairos.store.start-mark-delay",
          "kairos.cluster.enabled");

  /**
   * Every {@code kairos.*} property that only configures the starter's scheduler or store (besides
   * {@code kairos.limits.*}, whose names the application chooses).
   */
  private static final List<String> SCHEDULER_PROPERTIES =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of(
                  "kairos.workers",
                  "kairos.look-ahead",
                  "kairos.window-size",
                  "kairos.grace-period",
                  "kairos.startup-timeout",
                  "kairos.default-zone",
                  "kairos.instance-id",
                  "kairos.cluster.lease",
                  "kairos.cluster.poll"),
              STORE_PROPERTIES.stream())
          .toList();

  /** Whether spring-jdbc (and with it spring-tx) is on the classpath. */
  private static final boolean SPRING_JDBC =
      org.springframework.util.ClassUtils.isPresent(
          "org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy",
          KairosAutoConfiguration.class.getClassLoader());

  /** The store {@code kairos.store.type} chooses, {@code auto} resolved. */
  private static KairosProperties.StoreType storeType(KairosProperties properties, DataSource ds) {
    KairosProperties.StoreType type = properties.getStore().getType();
    if (type == KairosProperties.StoreType.AUTO) {
      return ds != null ? KairosProperties.StoreType.DATASOURCE : KairosProperties.StoreType.H2;
    }
    return type;
  }

  private static JdbcStore.Builder jdbc(KairosProperties.Store p, KairosProperties.Cluster c) {
    JdbcStore.Builder b = JdbcStore.builder();
    set("kairos.store.table-prefix", p.getTablePrefix(), b::tablePrefix);
    b.createSchema(p.isCreateSchema()).keepCompleted(p.isKeepCompleted()).clustered(c.isEnabled());
    set("kairos.store.history-per-job", p.getHistoryPerJob(), b::historyPerJob);
    set("kairos.store.start-mark-delay", p.getStartMarkDelay(), b::startMarkDelay);
    if (p.getHistoryMaxAge() != null) {
      set("kairos.store.history-max-age", p.getHistoryMaxAge(), b::historyMaxAge);
    }
    return b;
  }

  /**
   * Applies one property to a builder, turning the builder's {@link IllegalArgumentException} into
   * a start failure that names the property and its value.
   */
  private static <T> void set(String property, T value, java.util.function.Consumer<T> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException ex) {
      throw new IllegalStateException(property + "=" + value + ": " + ex.getMessage(), ex);
    }
  }

  /** The limit a {@code kairos.limits.<name>} entry describes. */
  private static ConcurrencyLimit concurrencyLimit(String name, KairosProperties.Limit limit) {
    return limit.getHandlers().isEmpty()
        ? ConcurrencyLimit.of(name, limit.getMaxConcurrent())
        : ConcurrencyLimit.group(
            name, limit.getMaxConcurrent(), limit.getHandlers().toArray(String[]::new));
  }

  private static String handlers(String name, KairosProperties.Limit limit) {
    return limit.getHandlers().isEmpty() ? name : String.join(", ", limit.getHandlers());
  }

  /**
   * The handlers and recurring jobs the application declares.
   *
   * @param beans the application's bean factory, searched for annotated methods
   * @param environment resolves placeholders in the annotations
   * @return the declared handlers and jobs
   */
  @Bean
  public DeclaredJobsHolder kairosDeclaredJobs(
      ConfigurableListableBeanFactory beans, Environment environment) {
    return new DeclaredJobsHolder(
        DeclaredJobs.scan(beans, environment::resolveRequiredPlaceholders), beans);
  }

  /**
   * The scheduler; {@link KairosLifecycle} starts and closes it.
   *
   * @param properties the {@code kairos.*} properties
   * @param store the job store
   * @param declared the declared handlers and jobs
   * @param listeners the listener beans, all registered
   * @param customizers the customizer beans, applied last
   * @param dataSource the application's data source, used if there is exactly one
   * @param beans tells whether the store is the starter's or a bean of the application's
   * @param environment tells which store properties are set, which the application's store ignores
   * @return the scheduler, not yet started
   */
  @Bean
  @ConditionalOnMissingBean
  public Scheduler kairosScheduler(
      KairosProperties properties,
      StoreSource store,
      DeclaredJobsHolder declared,
      ObjectProvider<SchedulerListener> listeners,
      ObjectProvider<KairosCustomizer> customizers,
      ObjectProvider<DataSource> dataSource,
      ConfigurableListableBeanFactory beans,
      Environment environment) {
    List<String> stores = List.of(beans.getBeanNamesForType(StoreSource.class, true, false));
    if (!stores.contains("kairosJobStore")) {
      if (Binder.get(environment).bind("kairos.cluster.enabled", Boolean.class).orElse(false)) {
        // Not a warning: the application would believe its instances share the fires.
        throw new IllegalStateException(
            "kairos.cluster.enabled=true does not apply: the application's store bean '"
                + String.join("', '", stores)
                + "' replaces the starter's store; build that store with clustered(true)");
      }
      warnUnused(
          environment,
          STORE_PROPERTIES,
          "the application's store bean '"
              + String.join("', '", stores)
              + "' replaces the starter's store; configure that store itself");
    }
    Kairos.Builder b = Kairos.builder().store(store);
    DataSource ds = dataSource.getIfUnique();
    if (SPRING_JDBC && storeType(properties, ds) == KairosProperties.StoreType.DATASOURCE) {
      b.callerTransactions(SpringTransactions.heapHook(ds)); // the heap follows commit and rollback
    }
    set("kairos.workers", properties.getWorkers(), b::workers);
    set("kairos.look-ahead", properties.getLookAhead(), b::lookAhead);
    set("kairos.window-size", properties.getWindowSize(), b::windowSize);
    set("kairos.grace-period", properties.getGracePeriod(), b::gracePeriod);
    set("kairos.startup-timeout", properties.getStartupTimeout(), b::startupTimeout);
    set("kairos.cluster.lease", properties.getCluster().getLease(), b::clusterLease);
    set("kairos.cluster.poll", properties.getCluster().getPoll(), b::clusterPoll);
    if (properties.getDefaultZone() != null) {
      b.defaultZone(properties.getDefaultZone());
    }
    if (properties.getInstanceId() != null) {
      set("kairos.instance-id", properties.getInstanceId(), b::instanceId);
    }
    DeclaredJobs jobs = declared.jobs();
    jobs.handlers()
        .forEach(
            (name, job) -> {
              try {
                b.handler(name, job);
              } catch (IllegalArgumentException ex) {
                throw new IllegalStateException(
                    jobs.origins().get(name) + ": " + ex.getMessage(), ex);
              }
            });
    properties
        .getLimits()
        .forEach(
            (name, limit) ->
                set(
                    "kairos.limits." + name,
                    limit.getMaxConcurrent() + " run(s) of " + handlers(name, limit),
                    v -> b.concurrencyLimit(concurrencyLimit(name, limit))));
    listeners.orderedStream().forEach(b::listener);
    customizers.orderedStream().forEach(c -> c.customize(b));
    try {
      return b.build();
    } catch (IllegalArgumentException ex) {
      throw limitProperties(properties, ex);
    }
  }

  /**
   * The builder's refusal of concurrency limits (checked at build, once customizers may have added
   * handlers), prefixed with the {@code kairos.limits.<name>} properties it is about; any other
   * refusal as it is.
   */
  private static RuntimeException limitProperties(
      KairosProperties properties, IllegalArgumentException ex) {
    String message = String.valueOf(ex.getMessage());
    if (!message.contains("concurrency limit")) {
      return ex;
    }
    List<String> named =
        properties.getLimits().keySet().stream()
            .filter(name -> message.contains("'" + name + "'"))
            .map(name -> "kairos.limits." + name)
            .toList();
    return named.isEmpty()
        ? ex
        : new IllegalStateException(String.join(", ", named) + ": " + message, ex);
  }

  /**
   * Starts the scheduler after the context is refreshed and closes it on shutdown.
   *
   * <p>A {@code Scheduler} bean of the application's is started and closed too (a scheduler the
   * application started already is not started again), and the endpoint, health indicator and
   * metrics report on it; but the starter knows nothing of the handlers its builder registered, and
   * builds neither it nor its store. So the start fails, naming the bean, on what cannot apply to
   * it: {@code kairos.removed-jobs} other than {@code warn} (it would judge that scheduler's jobs
   * by the annotated handlers alone, pausing or deleting jobs whose handlers it does not see), any
   * {@link KairosHandler} bean or {@link KairosScheduled} method (registered on the starter's
   * scheduler only), and {@code kairos.cluster.enabled=true} (the application would believe its
   * instances share the fires). Every other {@code kairos.*} property of the starter's scheduler or
   * store that is set is logged once at WARN, naming it, its value and the bean, and ignored; so is
   * each {@link SchedulerListener} and {@link KairosCustomizer} bean, which only the starter's
   * scheduler takes.
   *
   * @param scheduler the scheduler, the starter's or the application's
   * @param declared the declared handlers and jobs, scheduled at start
   * @param properties the {@code kairos.*} properties
   * @param beans tells whether the scheduler is the starter's or a bean of the application's
   * @param environment tells which properties are set, which the application's scheduler ignores
   * @return the lifecycle bean
   * @throws IllegalStateException naming the property, or the annotated beans and methods, and the
   *     application's Scheduler bean, for what cannot apply to it
   */
  @Bean
  @ConditionalOnMissingBean
  public KairosLifecycle kairosLifecycle(
      Scheduler scheduler,
      DeclaredJobsHolder declared,
      KairosProperties properties,
      ConfigurableListableBeanFactory beans,
      Environment environment) {
    List<String> own = applicationSchedulers(beans);
    if (own.isEmpty()) {
      return new KairosLifecycle(scheduler, declared.jobs(), properties.getRemovedJobs());
    }
    String names = "'" + String.join("', '", own) + "'";
    String bean = "the application's Scheduler bean " + names;
    if (properties.getCluster().isEnabled()) {
      // Not a warning, as with the application's store bean: it would believe its instances share
      // the fires.
      throw new IllegalStateException(
          "kairos.cluster.enabled=true does not apply: "
              + bean
              + " replaces the starter's scheduler and store; build that scheduler's store with"
              + " clustered(true)");
    }
    if (properties.getRemovedJobs() != KairosProperties.RemovedJobs.WARN) {
      throw new IllegalStateException(
          "kairos.removed-jobs="
              + properties.getRemovedJobs().name().toLowerCase(java.util.Locale.ROOT)
              + " cannot be applied to "
              + bean
              + ": the starter does not know which handlers that scheduler registers, so it cannot"
              + " tell which stored jobs lost theirs; remove kairos.removed-jobs (the default,"
              + " warn, leaves stored jobs be), or remove the bean "
              + names
              + " to let the starter build the scheduler");
    }
    List<String> annotated = declared.jobs().annotated();
    if (!annotated.isEmpty()) {
      throw new IllegalStateException(
          bean
              + " replaces the starter's, so these annotated handlers would be registered"
              + " nowhere: "
              + String.join(", ", annotated)
              + ". The starter registers @KairosHandler beans and @KairosScheduled methods only on"
              + " the scheduler it builds; register them with the builder of "
              + names
              + " yourself (and schedule their jobs) and remove the annotations, or remove the bean "
              + names
              + " to let the starter build the scheduler (KairosCustomizer beans adjust its"
              + " builder)");
    }
    String why = bean + " replaces the starter's scheduler and store; configure that bean itself";
    warnUnused(environment, SCHEDULER_PROPERTIES, why);
    properties
        .getLimits()
        .forEach(
            (name, limit) ->
                warnIgnored(
                    "kairos.limits." + name,
                    limit.getMaxConcurrent() + " run(s) of " + handlers(name, limit),
                    why));
    // Listener and customizer beans go into the builder of the starter's scheduler only.
    for (String name : beans.getBeanNamesForType(SchedulerListener.class, true, false)) {
      log.warn(
          "SchedulerListener bean '{}' is not registered: {} replaces the starter's scheduler;"
              + " pass it to that scheduler's builder (Kairos.builder().listener(...))",
          name,
          bean);
    }
    for (String name : beans.getBeanNamesForType(KairosCustomizer.class, true, false)) {
      log.warn(
          "KairosCustomizer bean '{}' is not applied: {} replaces the starter's scheduler,"
              + " and customizers adjust the builder of the starter's only",
          name,
          bean);
    }
    return new KairosLifecycle(scheduler, declared.jobs(), properties.getRemovedJobs(), names);
  }

  /**
   * The names of the {@code Scheduler} beans that are not the starter's {@code kairosScheduler}
   * (this context's and its ancestors'), judged by bean definitions: empty when the starter built
   * the scheduler, even if the application named a bean of its own {@code kairosScheduler}.
   */
  private static List<String> applicationSchedulers(ConfigurableListableBeanFactory beans) {
    return java.util.Arrays.stream(
            org.springframework.beans.factory.BeanFactoryUtils.beanNamesForTypeIncludingAncestors(
                beans, Scheduler.class, true, false))
        .filter(name -> !startersScheduler(beans, name))
        .toList();
  }

  private static boolean startersScheduler(ConfigurableListableBeanFactory beans, String name) {
    if (!beans.containsBeanDefinition(name)
        || !(beans.getBeanDefinition(name)
            instanceof org.springframework.beans.factory.annotation.AnnotatedBeanDefinition d)) {
      return false;
    }
    var method = d.getFactoryMethodMetadata();
    return method != null
        && method.getDeclaringClassName().equals(KairosAutoConfiguration.class.getName())
        && method.getMethodName().equals("kairosScheduler");
  }

  /**
   * Holds the scan result as a bean (the record itself is package-private); once every singleton is
   * made, fails the start on a bean whose class declares more than the type the scan judged it by.
   */
  public static final class DeclaredJobsHolder implements SmartInitializingSingleton {
    private final DeclaredJobs jobs;
    private final ConfigurableListableBeanFactory beans;

    DeclaredJobsHolder(DeclaredJobs jobs, ConfigurableListableBeanFactory beans) {
      this.jobs = jobs;
      this.beans = beans;
    }

    /**
     * Fails the start naming a bean made after the scan whose declared type hid a handler.
     *
     * @throws IllegalStateException naming the bean, its class and its declared type
     */
    @Override
    public void afterSingletonsInstantiated() {
      jobs.checkMade(beans);
    }

    DeclaredJobs jobs() {
      return jobs;
    }

    /**
     * Names of the registered handlers.
     *
     * @return the handler names
     */
    public java.util.Set<String> handlerNames() {
      return jobs.handlers().keySet();
    }
  }
}
