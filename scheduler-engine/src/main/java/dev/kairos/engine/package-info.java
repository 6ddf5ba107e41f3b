/**
 * The scheduler engine: {@link dev.kairos.engine.Kairos} builds a {@link dev.kairos.Scheduler};
 * {@link dev.kairos.engine.InMemoryStore} is a store for tests and single-process use; {@link
 * dev.kairos.engine.TimeSource} and {@link dev.kairos.engine.ManualClock} are the time seam. The
 * implementation lives in {@code dev.kairos.engine.internal}, which is not API.
 */
package dev.kairos.engine;
