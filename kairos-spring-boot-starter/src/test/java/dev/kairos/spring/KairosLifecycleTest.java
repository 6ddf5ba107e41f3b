package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.Job;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/** Start after refresh, graceful close at shutdown, and switching the starter off. */
class KairosLifecycleTest {
  final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(KairosAutoConfiguration.class))
          .withPropertyValues("kairos.store.type=memory");

  /** A job that blocks until interrupted, recording that it was. */
  static class Blocking implements Job {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();

    @Override
    public void run(dev.kairos.JobContext context) throws InterruptedException {
      started.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.set(true);
        throw e;
      }
    }
  }

  @Test
  void contextClose_stopsTheScheduler_interruptingRunsAfterTheGracePeriod() {
    runner
        .withPropertyValues("kairos.grace-period=200ms")
        .withBean("blocking", Blocking.class)
        .run(
            ctx -> {
              assertThat(ctx.getBean(KairosLifecycle.class).isRunning()).isTrue();
              ctx.getBean(Scheduler.class)
                  .schedule(JobSpec.named("b").handler("blocking").after(java.time.Duration.ZERO));
              Blocking job = ctx.getBean(Blocking.class);
              KairosLifecycle lifecycle = ctx.getBean(KairosLifecycle.class);
              assertThat(job.started.await(10, TimeUnit.SECONDS)).isTrue();

              ((ConfigurableApplicationContext) ctx.getSourceApplicationContext()).close();

              assertThat(job.interrupted).isTrue();
              assertThat(lifecycle.isRunning()).isFalse();
            });
  }

  @Test
  void disabled_noScheduler() {
    runner
        .withPropertyValues("kairos.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(Scheduler.class));
  }
}
