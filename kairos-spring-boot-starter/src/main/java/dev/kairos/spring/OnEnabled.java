package dev.kairos.spring;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * True unless a boolean property is set false, read as {@link KairosProperties} binds it: {@code
 * false}, {@code no}, {@code off} and {@code 0} all mean off (Spring's {@code
 * ConditionalOnProperty} took only the word {@code false}, so {@code kairos.enabled=no} still
 * started a scheduler the bound properties called disabled). A value that is no boolean fails the
 * startup naming the property.
 */
abstract class OnEnabled extends SpringBootCondition {
  private final String property;

  OnEnabled(String property) {
    this.property = property;
  }

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    boolean on = Binder.get(context.getEnvironment()).bind(property, Boolean.class).orElse(true);
    return on
        ? ConditionOutcome.match(property + " is true or not set")
        : ConditionOutcome.noMatch(property + " is false");
  }

  /** {@code kairos.enabled}. */
  static final class Scheduler extends OnEnabled {
    Scheduler() {
      super("kairos.enabled");
    }
  }

  /** {@code kairos.metrics.enabled}. */
  static final class Metrics extends OnEnabled {
    Metrics() {
      super("kairos.metrics.enabled");
    }
  }
}
