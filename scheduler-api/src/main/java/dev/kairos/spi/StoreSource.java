package dev.kairos.spi;

/**
 * What a scheduler is given as its store: a {@link JobStore} (which is its own source), or a
 * configured store such as {@code JdbcStore} that keeps its implementation of the SPI out of its
 * public face and hands it out here.
 */
@FunctionalInterface
public interface StoreSource {

  /**
   * The store the engine (or an administration tool) reads and writes through. Every call returns
   * the same object; opening or closing the source opens or closes it.
   *
   * @return the job store, never null
   */
  JobStore jobStore();
}
