package dev.kairos.spring;

import dev.kairos.engine.Kairos;

/**
 * A bean that adjusts the scheduler builder after the {@code kairos.*} properties are applied, for
 * settings without a property (a clock, a thread factory, more handlers or listeners).
 */
@FunctionalInterface
public interface KairosCustomizer {
  /**
   * Adjusts the builder.
   *
   * @param builder the scheduler builder, with the properties and declared handlers already applied
   */
  void customize(Kairos.Builder builder);
}
