package dev.kairos.benchmarks;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The products the runner compares, each with the adapter that drives it. */
enum Product {
  KAIROS_MEM("kairos-mem", "Kairos, in memory", Storage.MEMORY),
  KAIROS_H2("kairos-h2", "Kairos, H2 file", Storage.H2),
  KAIROS_PG("kairos-pg", "Kairos, PostgreSQL", Storage.POSTGRES),
  KAIROS_PG_CLUSTER(
      "kairos-pg-cluster", "Kairos, PostgreSQL, clustered(true), one instance", Storage.POSTGRES),
  KAIROS_MARIA("kairos-maria", "Kairos, MariaDB", Storage.MARIADB),
  STPE("stpe", "ScheduledThreadPoolExecutor", Storage.MEMORY),
  QUARTZ_RAM("quartz-ram", "Quartz, RAMJobStore", Storage.MEMORY),
  QUARTZ_H2("quartz-h2", "Quartz, JobStoreTX on H2 file", Storage.H2),
  QUARTZ_PG("quartz-pg", "Quartz, JobStoreTX on PostgreSQL", Storage.POSTGRES),
  QUARTZ_MARIA("quartz-maria", "Quartz, JobStoreTX on MariaDB", Storage.MARIADB),
  DBS_H2("dbs-h2", "db-scheduler, H2 file", Storage.H2),
  DBS_PG("dbs-pg", "db-scheduler, PostgreSQL", Storage.POSTGRES),
  DBS_MARIA("dbs-maria", "db-scheduler, MariaDB", Storage.MARIADB);

  /** Where a product keeps its jobs. */
  enum Storage {
    MEMORY,
    H2,
    POSTGRES,
    MARIADB
  }

  private final String id;
  private final String title;
  private final Storage storage;

  Product(String id, String title, Storage storage) {
    this.id = id;
    this.title = title;
    this.storage = storage;
  }

  String id() {
    return id;
  }

  String title() {
    return title;
  }

  Storage storage() {
    return storage;
  }

  boolean persistent() {
    return storage != Storage.MEMORY;
  }

  boolean isKairos() {
    return id.startsWith("kairos");
  }

  /** Opens the product's adapter over a fresh store. */
  Adapter open(Options o) throws Exception {
    Store store =
        switch (storage) {
          case MEMORY -> null;
          case H2 -> Store.h2(o.dataDir(), id.replace('-', '_'));
          case POSTGRES ->
              Store.postgres(o.pgUrl(), o.pgUser(), o.pgPassword(), id.replace('-', '_'));
          case MARIADB ->
              Store.mariadb(o.mariaUrl(), o.mariaUser(), o.mariaPassword(), id.replace('-', '_'));
        };
    try {
      return switch (this) {
        case KAIROS_MEM -> KairosAdapter.inMemory(o.workers());
        case KAIROS_H2, KAIROS_PG, KAIROS_MARIA -> KairosAdapter.jdbc(store, o.workers(), false);
        case KAIROS_PG_CLUSTER -> KairosAdapter.jdbc(store, o.workers(), true);
        case STPE -> new StpeAdapter(o.workers());
        case QUARTZ_RAM, QUARTZ_H2, QUARTZ_PG, QUARTZ_MARIA ->
            new QuartzAdapter(store, o.workers());
        case DBS_H2, DBS_PG, DBS_MARIA ->
            new DbSchedulerAdapter(store, o.workers(), o.pollInterval());
      };
    } catch (Exception | Error e) {
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  /** Why the product cannot run here, or empty if it can. */
  Optional<String> unavailable(Options o) {
    return switch (storage) {
      case MEMORY, H2 -> Optional.empty();
      case POSTGRES -> unreachable("PostgreSQL", o.pgUrl(), o.pgUser(), o.pgPassword());
      case MARIADB -> unreachable("MariaDB", o.mariaUrl(), o.mariaUser(), o.mariaPassword());
    };
  }

  private static Optional<String> unreachable(
      String server, String url, String user, String password) {
    try {
      DriverManager.getConnection(url, user, password).close();
      return Optional.empty();
    } catch (SQLException e) {
      return Optional.of(server + " unreachable at " + url + ": " + e.getMessage());
    }
  }

  static Product byId(String id) {
    return Arrays.stream(values())
        .filter(p -> p.id.equals(id))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown product '" + id + "'; known: " + String.join(", ", ids())));
  }

  static List<String> ids() {
    return Arrays.stream(values()).map(Product::id).toList();
  }
}
