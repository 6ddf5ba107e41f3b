/**
 * The service-provider interface for job stores. Users pick a store ({@code InMemoryStore}, {@code
 * JdbcStore}) and hand it to the scheduler as a {@link dev.kairos.spi.StoreSource}; implementers of
 * a new store implement {@link dev.kairos.spi.JobStore}, which is its own source. {@code JdbcStore}
 * is a source only: its {@code jobStore()} is the SPI object, for the engine and tools.
 */
package dev.kairos.spi;
