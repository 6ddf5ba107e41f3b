/**
 * The public API of Kairos: what application code writes against. Build a scheduler with {@code
 * dev.kairos.engine.Kairos.builder()}, define jobs with {@link dev.kairos.JobSpec}.
 */
package dev.kairos;
