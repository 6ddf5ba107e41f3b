package dev.kairos.spring;

import dev.kairos.CalendarPolicy;
import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Job;
import dev.kairos.JobContext;
import dev.kairos.JobSpec;
import dev.kairos.Misfire;
import dev.kairos.Overlap;
import dev.kairos.Retry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

/**
 * The handlers and recurring jobs an application declares: {@link Job} beans (by bean name or
 * {@link KairosHandler}) and {@link KairosScheduled} methods. Found from bean types without
 * creating the beans; each handler looks its bean up when it runs, so a bean may depend on the
 * scheduler.
 *
 * @param handlers handler name to job
 * @param origins handler name to where it was declared (for error messages)
 * @param jobs the recurring jobs declared by annotation, to upsert at start
 * @param scanned bean name to the type the scan judged it by (beans of unknown type left out)
 * @param annotated the {@link KairosHandler} beans and {@link KairosScheduled} methods, each as
 *     error messages name it, sorted: the handlers only the starter's own scheduler registers
 */
record DeclaredJobs(
    Map<String, Job> handlers,
    Map<String, String> origins,
    List<Declared> jobs,
    Map<String, Class<?>> scanned,
    List<String> annotated) {

  /** One annotated method's job, and where it was declared (for error messages). */
  record Declared(JobSpec spec, String origin) {}

  /**
   * Scans the bean factory.
   *
   * @throws IllegalStateException naming the bean, method and value of a bad declaration, or the
   *     two declarations of one handler name
   */
  static DeclaredJobs scan(ConfigurableListableBeanFactory beans, StringValueResolver resolver) {
    Map<String, Job> handlers = new LinkedHashMap<>();
    Map<String, String> origins = new LinkedHashMap<>();
    List<Declared> jobs = new ArrayList<>();
    Map<String, Class<?>> scanned = new LinkedHashMap<>();
    List<String> annotated = new ArrayList<>();
    for (String name : beans.getBeanNamesForType(Job.class, true, false)) {
      Class<?> type = beans.getType(name, false);
      KairosHandler named =
          type == null
              ? null
              : AnnotatedElementUtils.findMergedAnnotation(type, KairosHandler.class);
      if (named != null && named.value().isBlank()) {
        throw new IllegalStateException(
            "@KairosHandler(\""
                + named.value()
                + "\") on bean '"
                + name
                + "' ("
                + ClassUtils.getUserClass(type).getName()
                + "): the handler name is blank; leave the annotation out to use the bean name '"
                + name
                + "'");
      }
      String handler = named != null ? named.value() : name;
      if (named != null) {
        annotated.add("@KairosHandler(\"" + named.value() + "\") on bean '" + name + "'");
      }
      add(
          handlers,
          origins,
          handler,
          "Job bean '" + name + "'",
          ctx -> beans.getBean(name, Job.class).run(ctx));
    }
    for (String name : beans.getBeanDefinitionNames()) {
      Class<?> type = beans.getType(name, false);
      if (type == null) {
        continue;
      }
      scanned.put(name, type);
      if (!Job.class.isAssignableFrom(type)
          && AnnotatedElementUtils.findMergedAnnotation(type, KairosHandler.class) != null) {
        throw new IllegalStateException(
            "@KairosHandler on bean '"
                + name
                + "' ("
                + ClassUtils.getUserClass(type).getName()
                + "): the class is no dev.kairos.Job, so it would name no handler; implement Job,"
                + " or use @KairosScheduled on a method");
      }
      Map<Method, KairosScheduled> methods =
          MethodIntrospector.selectMethods(
              ClassUtils.getUserClass(type),
              (MethodIntrospector.MetadataLookup<KairosScheduled>)
                  m -> AnnotatedElementUtils.findMergedAnnotation(m, KairosScheduled.class));
      for (Map.Entry<Method, KairosScheduled> e : methods.entrySet()) {
        Method method = e.getKey();
        String origin = "@KairosScheduled on bean '" + name + "' method '" + method.getName() + "'";
        JobSpec spec = spec(e.getValue(), name, method, origin, resolver);
        add(handlers, origins, spec.key(), origin, invoker(beans, name, method, origin));
        jobs.add(new Declared(spec, origin));
        annotated.add(origin);
      }
    }
    return new DeclaredJobs(
        Map.copyOf(handlers),
        Map.copyOf(origins),
        List.copyOf(jobs),
        Map.copyOf(scanned),
        annotated.stream().sorted().toList());
  }

  /**
   * Checks the singletons made after the scan: a bean whose class declares more to Kairos than the
   * type the scan judged it by (a {@code @Bean Object} method returning a {@link Job}, a {@code
   * Job} return type hiding the class's {@link KairosHandler}, {@link KairosScheduled} methods
   * behind {@code Object}) was missed or registered under another name, so the start fails naming
   * it.
   *
   * @throws IllegalStateException naming the bean, its class and the type the scan saw
   */
  void checkMade(ConfigurableListableBeanFactory beans) {
    for (String name : beans.getBeanDefinitionNames()) {
      Object bean = beans.containsSingleton(name) ? beans.getSingleton(name) : null;
      // A @Bean method that returned null leaves a NullBean, which equals null.
      if (bean == null || bean.equals(null) || bean instanceof FactoryBean<?>) {
        continue;
      }
      Class<?> made = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
      Class<?> seen = scanned.get(name);
      if (seen != null && ClassUtils.getUserClass(seen) == made) {
        continue;
      }
      String declares = declares(made);
      String seenDeclares = declares(seen);
      if (!declares.equals(seenDeclares)) {
        throw new IllegalStateException(
            "bean '"
                + name
                + "' is a "
                + made.getName()
                + " ("
                + declares
                + "), but Kairos looked for handlers by its declared type "
                + (seen == null ? "(unknown)" : seen.getName())
                + " ("
                + seenDeclares
                + "), before the bean was made; declare the @Bean method's return type as "
                + made.getSimpleName());
      }
    }
  }

  /** What a type declares to Kairos, in words: a Job, its handler name, its scheduled methods. */
  private static String declares(Class<?> type) {
    if (type == null) {
      return "nothing for Kairos";
    }
    List<String> parts = new ArrayList<>();
    if (Job.class.isAssignableFrom(type)) {
      parts.add("a Job");
    }
    KairosHandler named = AnnotatedElementUtils.findMergedAnnotation(type, KairosHandler.class);
    if (named != null) {
      parts.add("@KairosHandler(\"" + named.value() + "\")");
    }
    List<String> methods =
        MethodIntrospector.selectMethods(
                ClassUtils.getUserClass(type),
                (ReflectionUtils.MethodFilter)
                    m -> AnnotatedElementUtils.hasAnnotation(m, KairosScheduled.class))
            .stream()
            .map(Method::getName)
            .sorted()
            .toList();
    if (!methods.isEmpty()) {
      parts.add("@KairosScheduled methods " + methods);
    }
    return parts.isEmpty() ? "nothing for Kairos" : String.join(", ", parts);
  }

  private static void add(
      Map<String, Job> handlers, Map<String, String> origins, String name, String origin, Job job) {
    String before = origins.putIfAbsent(name, origin);
    if (before != null) {
      throw new IllegalStateException(
          "two Kairos handlers named '" + name + "': " + before + " and " + origin);
    }
    handlers.put(name, job);
  }

  private static Job invoker(BeanFactory beans, String name, Method method, String origin) {
    if (method.getParameterCount() > 1
        || (method.getParameterCount() == 1 && method.getParameterTypes()[0] != JobContext.class)) {
      throw new IllegalStateException(
          origin + ": the method must take no parameter or one JobContext");
    }
    boolean withContext = method.getParameterCount() == 1;
    return ctx -> {
      Object bean = beans.getBean(name);
      Method target = AopUtils.selectInvocableMethod(method, bean.getClass());
      ReflectionUtils.makeAccessible(target);
      try {
        if (withContext) {
          target.invoke(bean, ctx);
        } else {
          target.invoke(bean);
        }
      } catch (InvocationTargetException ex) {
        Throwable cause = ex.getCause();
        if (cause instanceof Exception checked) {
          throw checked;
        }
        throw (Error) cause;
      }
    };
  }

  /** The job an annotation declares; every bad value fails with the origin and the value. */
  static JobSpec spec(
      KairosScheduled a, String beanName, Method method, String origin, StringValueResolver r) {
    String key = r.resolveStringValue(a.key());
    if (key == null || key.isEmpty()) {
      key = beanName + "." + method.getName();
    } else if (key.isBlank()) {
      // Given but blank (or a placeholder that resolved so): a mistake, not a wish for the default.
      throw new IllegalStateException(
          origin
              + ": key '"
              + key
              + "' is blank; leave it out for "
              + beanName
              + "."
              + method.getName());
    }
    JobSpec spec = JobSpec.named(key).handler(key);
    String cron = r.resolveStringValue(a.cron());
    String rate = r.resolveStringValue(a.fixedRate());
    String delay = r.resolveStringValue(a.fixedDelay());
    int set = (cron.isEmpty() ? 0 : 1) + (rate.isEmpty() ? 0 : 1) + (delay.isEmpty() ? 0 : 1);
    if (set != 1) {
      throw new IllegalStateException(
          origin + ": set exactly one of cron, fixedRate, fixedDelay (found " + set + ")");
    }
    String kind = !cron.isEmpty() ? "cron" : rate.isEmpty() ? "fixedDelay" : "fixedRate";
    if (cron.isEmpty()) {
      refuseCronAttributes(a, r.resolveStringValue(a.zone()), kind, origin);
    }
    if (!cron.isEmpty()) {
      spec =
          spec.cron(cron, zone(r.resolveStringValue(a.zone()), origin), a.syntax())
              .dst(new DstPolicy(a.dstGap(), a.dstOverlap()));
    } else {
      spec =
          rate.isEmpty()
              ? spec.fixedDelay(duration(delay, "fixedDelay", origin))
              : spec.fixedRate(duration(rate, "fixedRate", origin));
    }
    String initial = r.resolveStringValue(a.initialDelay());
    if (!initial.isEmpty()) {
      if (!cron.isEmpty()) {
        throw new IllegalStateException(
            origin
                + ": initialDelay '"
                + initial
                + "' applies to fixedRate and fixedDelay only, not to cron");
      }
      spec = spec.initialDelay(duration(initial, "initialDelay", origin));
    }
    spec = spec.misfire(misfire(a, spec.misfire(), origin, r));
    String jitter = r.resolveStringValue(a.jitter());
    if (!jitter.isEmpty()) {
      spec = spec.jitter(duration(jitter, "jitter", origin));
    }
    spec =
        spec.overlap(
            switch (a.overlap()) {
              case FORBID -> Overlap.forbid();
              case BUFFER_ONE -> Overlap.bufferOne();
              case SKIP -> Overlap.skip();
              case REPLACE -> Overlap.replace();
              case ALLOW -> allow(a.concurrentRuns(), origin);
            });
    if (a.overlap() != KairosScheduled.OverlapPolicy.ALLOW && a.concurrentRuns() != 0) {
      throw new IllegalStateException(
          origin
              + ": concurrentRuns "
              + a.concurrentRuns()
              + " is set, but overlap is "
              + a.overlap()
              + " (concurrentRuns goes with overlap = ALLOW)");
    }
    String calendar = r.resolveStringValue(a.calendar());
    if (!calendar.isEmpty()) {
      spec = spec.excluding(calendar, a.calendarPolicy());
    } else if (a.calendarPolicy() != CalendarPolicy.SKIP && a.calendar().isEmpty()) {
      // A calendar written as a placeholder that resolves to nothing (a profile without one)
      // leaves the policy unused, as it always did.
      throw new IllegalStateException(
          origin
              + ": calendarPolicy "
              + a.calendarPolicy()
              + " needs a calendar (calendar is not set)");
    }
    if (a.retryAttempts() < 1) {
      throw new IllegalStateException(
          origin + ": retryAttempts " + a.retryAttempts() + " is less than 1");
    }
    // Written out, another delay than the default 1 s asks for a retry that one attempt never
    // makes; a placeholder may stand for a delay other profiles' attempts use.
    String retryDelay = a.retryDelay();
    if (a.retryAttempts() == 1
        && !retryDelay.contains("${")
        && !duration(retryDelay, "retryDelay", origin).equals(Duration.ofSeconds(1))) {
      throw new IllegalStateException(
          origin
              + ": retryDelay '"
              + retryDelay
              + "' needs retryAttempts above 1 (retryAttempts is 1)");
    }
    if (a.retryAttempts() > 1) {
      spec =
          spec.retry(
              Retry.backoff(
                  a.retryAttempts(),
                  duration(r.resolveStringValue(a.retryDelay()), "retryDelay", origin)));
    }
    String data = r.resolveStringValue(a.data());
    return data.isEmpty() ? spec : spec.data(data);
  }

  private static Misfire misfire(
      KairosScheduled a, Misfire fallback, String origin, StringValueResolver r) {
    Misfire policy =
        switch (a.misfire()) {
          case DEFAULT -> fallback;
          case CATCH_UP -> a.catchUpMax() > 0 ? Misfire.catchUp(a.catchUpMax()) : Misfire.catchUp();
          case FIRE_ONCE -> Misfire.fireOnce();
          case SKIP -> Misfire.skip();
        };
    if (a.catchUpMax() < 0) {
      throw new IllegalStateException(
          origin
              + ": catchUpMax "
              + a.catchUpMax()
              + " is negative (0 makes up every missed fire)");
    }
    if (a.catchUpMax() != 0 && a.misfire() != KairosScheduled.MisfirePolicy.CATCH_UP) {
      throw new IllegalStateException(
          origin + ": catchUpMax " + a.catchUpMax() + " needs misfire = CATCH_UP");
    }
    String window = r.resolveStringValue(a.catchUpWindow());
    if (!window.isEmpty()) {
      if (!(policy instanceof Misfire.CatchUp c)
          || a.misfire() != KairosScheduled.MisfirePolicy.CATCH_UP) {
        throw new IllegalStateException(
            origin + ": catchUpWindow '" + window + "' needs misfire = CATCH_UP");
      }
      policy = c.within(duration(window, "catchUpWindow", origin));
    }
    String threshold = r.resolveStringValue(a.misfireThreshold());
    return threshold.isEmpty()
        ? policy
        : policy.threshold(duration(threshold, "misfireThreshold", origin));
  }

  /**
   * Refuses the cron-only attributes on a fixed-rate or fixed-delay job: a zone given, or a syntax
   * or daylight-saving rule other than the default.
   */
  private static void refuseCronAttributes(
      KairosScheduled a, String zone, String kind, String origin) {
    String given = null;
    if (!zone.isEmpty()) {
      given = "zone '" + zone + "'";
    } else if (a.syntax() != CronSyntax.SPRING) {
      given = "syntax " + a.syntax();
    } else if (a.dstGap() != DstPolicy.Gap.SHIFT) {
      given = "dstGap " + a.dstGap();
    } else if (a.dstOverlap() != DstPolicy.Overlap.FIRST) {
      given = "dstOverlap " + a.dstOverlap();
    }
    if (given != null) {
      throw new IllegalStateException(
          origin + ": " + given + " applies to cron only, not to " + kind);
    }
  }

  private static ZoneId zone(String zone, String origin) {
    if (zone.isEmpty()) {
      return null;
    }
    try {
      return ZoneId.of(zone);
    } catch (DateTimeException ex) {
      throw new IllegalStateException(origin + ": unknown zone '" + zone + "'", ex);
    }
  }

  /**
   * {@code Overlap.allow(n)} of the annotation's {@code concurrentRuns}, or a refusal naming it.
   */
  private static Overlap allow(int runs, String origin) {
    if (runs == 0) {
      throw new IllegalStateException(
          origin
              + ": overlap = ALLOW needs concurrentRuns (1 to "
              + Overlap.MAX_CONCURRENT_RUNS
              + ")");
    }
    try {
      return Overlap.allow(runs);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(origin + ": concurrentRuns: " + e.getMessage(), e);
    }
  }

  private static Duration duration(String value, String attribute, String origin) {
    try {
      Duration d = DurationStyle.detectAndParse(value);
      if (d.isNegative()) {
        throw new IllegalArgumentException("negative");
      }
      return d;
    } catch (IllegalArgumentException ex) {
      throw new IllegalStateException(
          origin + ": " + attribute + " '" + value + "' is not a duration (10s, 5m, PT1H)", ex);
    }
  }
}
