package dev.kairos.benchmarks;

/**
 * Kairos over {@code dev.kairos.jdbc.JdbcStore}. The JDBC store is being written on another branch;
 * until it is merged here, the H2 and PostgreSQL Kairos products report themselves unavailable.
 */
final class KairosJdbcAdapter {
  private KairosJdbcAdapter() {}

  static boolean available() {
    try {
      Class.forName("dev.kairos.jdbc.JdbcStore");
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  static Adapter open(Store store, int workers) {
    store.close();
    throw new UnsupportedOperationException("Kairos JDBC store not merged into this build");
  }
}
