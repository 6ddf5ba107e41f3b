/**
 * The service-provider interface for job stores. Users pick a store ({@code InMemoryStore}, {@code
 * JdbcStore}); implementers of a new store implement {@link dev.kairos.spi.JobStore}.
 */
package dev.kairos.spi;
