package dev.kairos.jdbc;

import static dev.kairos.tck.JobStoreContract.failure;
import static dev.kairos.tck.JobStoreContract.fresh;
import static dev.kairos.tck.JobStoreContract.success;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kairos.JobInfo;
import dev.kairos.JobSpec;
import dev.kairos.Scheduler;
import dev.kairos.engine.Kairos;
import dev.kairos.spi.JobRecord;
import dev.kairos.spi.JobStore;
import dev.kairos.tck.PostgresTestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A PostgreSQL database is created with an encoding, and its text columns hold that encoding's
 * characters alone: before this test, a LATIN1 database refused a run whose error text held
 * Japanese ({@code character with byte sequence ... has no equivalent in encoding "LATIN1"}), with
 * it the whole batch of write-backs, and then that run alone without end; in a probe the failing
 * job never fired again. The store now writes each character its database cannot hold as a
 * backslash-u code, and keeps the others as they are. Each test makes a database of its own and
 * drops it.
 */
class DatabaseEncodingTest {
  private static final Instant T0 = Instant.parse("2026-01-05T00:00:00Z");
  private static final String TEXT = "file 日本語.csv, café, 20 € 🚀";

  @RegisterExtension static final PostgresTestDatabase server = PostgresTestDatabase.create();

  /** Runs body with a store on a new database of that encoding, dropped afterwards. */
  private static void withDatabase(String encoding, Consumer<JdbcStore.Builder> body)
      throws Exception {
    server.assumeReachable();
    try (PostgresTestDatabase.OwnDatabase db =
        server.ownDatabase(
            "kairos_enc_",
            "ENCODING '" + encoding + "' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")) {
      body.accept(
          JdbcStore.builder()
              .url(db.url())
              .user(PostgresTestDatabase.USER)
              .password(PostgresTestDatabase.PASSWORD)
              .poolSize(2));
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // what each database keeps of TEXT: LATIN1 has é but not €; WIN1252 has both
        "LATIN1    | file \\u65e5\\u672c\\u8a9e.csv, café, 20 \\u20ac \\ud83d\\ude80",
        "WIN1252   | file \\u65e5\\u672c\\u8a9e.csv, café, 20 € \\ud83d\\ude80",
        "SQL_ASCII | file 日本語.csv, café, 20 € 🚀",
        "UTF8      | file 日本語.csv, café, 20 € 🚀"
      })
  void errorTextsTheDatabaseCannotHold_storedEscapedAndTheBatchLands(String encoding, String kept)
      throws Exception {
    withDatabase(
        encoding,
        builder -> {
          try (JdbcStore jdbc = builder.build()) {
            JobStore store = jdbc.jobStore();
            store.open();
            JobRecord a = store.upsert(fresh("a", T0)).record();
            JobRecord b = store.upsert(fresh("b", T0)).record();

            List<Optional<JobRecord>> written =
                store.runsFinished(List.of(failure(a, TEXT), success(b)));

            assertThat(written).allMatch(Optional::isPresent);
            assertThat(written.get(0).orElseThrow().lastError()).isEqualTo(kept);
            assertThat(store.find("a").orElseThrow().lastError()).isEqualTo(kept);
            assertThat(store.history("a", 1).get(0).error()).isEqualTo(kept);
            assertThat(store.find("b").orElseThrow().runCount()).isEqualTo(1);
            // one run alone, as the engine writes a run whose batch failed
            JobRecord again =
                store.runFinished(failure(store.find("a").orElseThrow(), TEXT)).orElseThrow();
            assertThat(again.lastError()).isEqualTo(kept);
            assertThat(store.history("a", 1).get(0).error()).isEqualTo(kept);
          }
        });
  }

  /**
   * A scheduler on a LATIN1 database: a job whose runs fail with Japanese in the message fires at
   * every slot and its history says what failed (before: it fired once and never again, and its run
   * was never written).
   */
  @Test
  void schedulerOnLatin1_aJobFailingWithTextTheDatabaseCannotHold_keepsFiring() throws Exception {
    withDatabase(
        "LATIN1",
        builder -> {
          try (JdbcStore jdbc = builder.build();
              Scheduler s =
                  Kairos.builder()
                      .store(jdbc)
                      .handler(
                          "fails",
                          ctx -> {
                            throw new IllegalStateException(TEXT);
                          })
                      .handler("ok", ctx -> {})
                      .build()) {
            s.schedule(JobSpec.named("bad").handler("fails").fixedRate(Duration.ofMillis(100)));
            s.schedule(JobSpec.named("good").handler("ok").fixedRate(Duration.ofMillis(100)));
            s.start();
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> s.job("bad").map(JobInfo::runCount).orElse(0L) >= 5);
            assertThat(s.history("bad", 1).get(0).error())
                .isEqualTo(
                    "java.lang.IllegalStateException: file \\u65e5\\u672c\\u8a9e.csv, café, 20"
                        + " \\u20ac \\ud83d\\ude80");
            assertThat(s.job("good").map(JobInfo::runCount).orElse(0L)).isGreaterThan(0);
          }
        });
  }

  /**
   * A job whose key, handler name, data or calendar the database cannot hold is refused by {@code
   * schedule} and {@code scheduleAll} with an {@link IllegalArgumentException} naming the key, the
   * field and the character, and nothing is written; reads and deletions of such a key answer
   * "none". Before, each failed in the database with a {@code StoreException} (a store failure, as
   * if the database were down) that named no field, and a read of the key failed too.
   */
  @Test
  void schedulerOnLatin1_jobsItCannotHold_refusedNamingKeyFieldAndCharacter() throws Exception {
    withDatabase(
        "LATIN1",
        builder -> {
          try (JdbcStore jdbc = builder.build();
              Scheduler s = Kairos.builder().store(jdbc).handler("h", ctx -> {}).build()) {
            JobSpec japaneseKey =
                JobSpec.named("レポート").handler("h").fixedRate(Duration.ofMinutes(1));
            assertThatThrownBy(() -> s.schedule(japaneseKey))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 'レポート'")
                .hasMessageContaining(
                    "key has a character the database's encoding (ISO-8859-1) cannot hold:"
                        + " 'レ' (U+30EC) at index 0");
            assertThatThrownBy(
                    () ->
                        s.schedule(
                            JobSpec.named("report-tokyo")
                                .handler("h")
                                .data("{\"city\": \"東京\"}")
                                .fixedRate(Duration.ofMinutes(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 'report-tokyo'")
                .hasMessageContaining("data has a character")
                .hasMessageContaining("'東' (U+6771) at index 10");
            assertThatThrownBy(
                    () ->
                        s.scheduleAll(
                            List.of(
                                JobSpec.named("ok").handler("h").fixedRate(Duration.ofMinutes(1)),
                                JobSpec.named("ジョブ")
                                    .handler("h")
                                    .fixedRate(Duration.ofMinutes(1)))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nothing scheduled")
                .hasMessageContaining("job 'ジョブ': key has a character");
            assertThatThrownBy(
                    () -> s.putCalendar("祝日", dev.kairos.BusinessCalendar.in(ZoneOffset.UTC)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("calendar '祝日': name has a character");
            assertThat(s.jobs()).isEmpty();
            assertThat(s.job("ジョブ")).isEmpty();
            assertThat(s.history("ジョブ", 5)).isEmpty();
            assertThat(s.unschedule("ジョブ")).isFalse();
            assertThat(s.unscheduleAll(List.of("ジョブ", "ok"))).isZero();
            // what LATIN1 holds is stored as it is
            s.schedule(JobSpec.named("café").handler("h").fixedRate(Duration.ofMinutes(1)));
            assertThat(s.job("café")).isPresent();
          }
        });
  }

  /**
   * An instance id the database cannot hold (written with every run) is refused at {@code start()},
   * naming it; before, the scheduler started and every write-back failed.
   */
  @Test
  void schedulerOnLatin1_anInstanceIdItCannotHold_refusedAtStart() throws Exception {
    withDatabase(
        "LATIN1",
        builder -> {
          try (JdbcStore jdbc = builder.build();
              Scheduler s =
                  Kairos.builder()
                      .store(jdbc)
                      .instanceId("nœud-1")
                      .handler("h", ctx -> {})
                      .build()) {
            assertThatThrownBy(s::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("instance id 'nœud-1' has a character")
                .hasMessageContaining("'œ' (U+0153) at index 1");
          }
        });
  }
}
