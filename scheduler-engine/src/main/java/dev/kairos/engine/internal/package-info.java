/**
 * The engine's implementation: dispatcher, heap, fire runner, timetables, cron, misfire rule,
 * cluster sync. <b>Not API</b>: anything here may change in any release without notice, and no
 * public type outside this package exposes a type from it. Use {@link dev.kairos.engine.Kairos} and
 * the {@link dev.kairos.Scheduler} it builds.
 */
package dev.kairos.engine.internal;
