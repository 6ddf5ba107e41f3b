/**
 * The {@code kairos} command-line tool: {@link dev.kairos.cli.KairosCli} is its entry point; the
 * commands are package-private picocli classes.
 */
package dev.kairos.cli;
