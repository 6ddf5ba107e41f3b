package dev.kairos.engine.internal;

import dev.kairos.engine.Kairos;

/** Access to the engine's own type behind {@link Kairos.Builder#build()}, for the step API. */
public final class Engines {
  private Engines() {}

  /**
   * Builds the scheduler as the engine's own type, whose step API ({@link KairosScheduler#open()},
   * {@link KairosScheduler#runDue()}) tests and benchmarks drive. Not API.
   *
   * @param builder a configured builder
   * @return the scheduler {@code builder.build()} makes
   */
  public static KairosScheduler build(Kairos.Builder builder) {
    return (KairosScheduler) builder.build();
  }
}
