package dev.kairos.benchmarks.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lost-commit check on synthetic child logs: lines as the engine and the store write them. */
class LostCommitsTest {
  @TempDir Path dir;

  private void log(String generation, String... lines) throws Exception {
    Files.write(dir.resolve("child-s0." + generation + ".log"), List.of(lines));
  }

  private static String trace(String at, String text) {
    return at + " [api-1] TRACE dev.kairos.jdbc.JdbcStore - " + text;
  }

  @Test
  void aCommitTheNextGenerationReadsOlder_isALoss() throws Exception {
    log(
        "g0",
        trace("00:00:01.000", "job 'a': replace at version 5 with PAUSED due null: version 6"),
        trace(
            "00:00:01.100",
            "job 'b': upsert CREATED: version 90 SCHEDULED due 2026-01-01T00:00:00Z"));
    log(
        "g1",
        trace("00:00:03.000", "job 'a': loaded PAUSED at version 5: a recovery"),
        trace("00:00:03.100", "job 'b': replace at version 90 with PAUSED due null: version 91"),
        trace("00:00:03.200", "job 'a': replace at version 6 with SCHEDULED due null: version 7"));

    LostCommits.Report r = LostCommits.find(dir);

    assertThat(r.restarts()).isEqualTo(1);
    assertThat(r.losses())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.key()).isEqualTo("a");
              assertThat(l.committed()).isEqualTo(6);
              assertThat(l.read()).isEqualTo(5);
              assertThat(l.at()).isEqualTo("00:00:01.000");
            });
    assertThat(r.render()).contains("commits missing after a restart").contains(": 1\n");
  }

  @Test
  void everyCommitReadAtItsVersionOrLater_isNoLoss() throws Exception {
    log(
        "g0",
        trace(
            "00:00:01.000",
            "job 'a': write-back of fire 2026-01-01T00:00:00Z over version 5 RUNNING: version 6"
                + " SCHEDULED due 2026-01-01T00:00:01Z"),
        trace(
            "00:00:01.001",
            "job 'a': write-back of fire 2026-01-01T00:00:00Z committed: version 6"));
    log("g1", trace("00:00:03.000", "job 'a': start mark at version 6: 1 row(s)"));
    log("g2", "00:00:05.000 [main] INFO nothing traced here");

    LostCommits.Report r = LostCommits.find(dir);

    assertThat(r.losses()).isEmpty();
    assertThat(r.restarts()).isEqualTo(2);
    assertThat(r.untraced()).isZero(); // g1 is traced; g2 is only ever read
  }

  @Test
  void aWriteBackCutOffBeforeItsCommit_isNoLoss_butOneThatCommitted_is() throws Exception {
    log(
        "g0",
        // a: read and written inside the transaction, killed before the commit returned
        trace(
            "00:00:01.000",
            "job 'a': write-back of fire 2026-01-01T00:00:00Z over version 5 RUNNING: version 6"
                + " SCHEDULED due 2026-01-01T00:00:01Z"),
        trace(
            "00:00:01.100",
            "job 'b': write-back of fire 2026-01-01T00:00:00Z over version 8 RUNNING: version 9"
                + " SCHEDULED due 2026-01-01T00:00:01Z"),
        trace(
            "00:00:01.105",
            "job 'b': write-back of fire 2026-01-01T00:00:00Z committed: version 9"));
    log(
        "g1",
        trace("00:00:03.000", "job 'a': loaded RUNNING at version 5: a recovery"),
        trace("00:00:03.000", "job 'b': loaded RUNNING at version 8: a recovery"));

    LostCommits.Report r = LostCommits.find(dir);

    assertThat(r.losses()).singleElement().satisfies(l -> assertThat(l.key()).isEqualTo("b"));
  }

  private static String engine(String at, String text) {
    return at + " [api-0] DEBUG dev.kairos.engine.internal.KairosScheduler - " + text;
  }

  @Test
  void aDeletionTheNextGenerationDoesNotSee_isALoss() throws Exception {
    log(
        "g0",
        trace("00:00:01.000", "job 'a': replace at version 5 with SCHEDULED due x: version 6"),
        engine("00:00:01.010", "job 'a' unscheduled"));
    log("g1", trace("00:00:03.000", "job 'a': loaded SCHEDULED at version 6: due"));

    LostCommits.Report r = LostCommits.find(dir);

    assertThat(r.losses())
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.deleted()).isTrue();
              assertThat(l.committed()).isEqualTo(6);
              assertThat(l.read()).isEqualTo(6);
              assertThat(l.lostBetween(1_009, 1_011)).isTrue(); // the deletion
              assertThat(l.lostBetween(999, 1_001)).isFalse(); // the replace was read
            });
    assertThat(r.render()).contains("a: version 6 deleted by s0.g0 at 00:00:01.010");
  }

  @Test
  void aDeletionHeld_orUndoneByACreateBeforeTheKill_isNoLoss() throws Exception {
    log(
        "g0",
        engine("00:00:01.000", "job 'a' unscheduled"),
        engine("00:00:01.000", "job 'b' unscheduled"),
        trace("00:00:01.100", "job 'b': upsert CREATED: version 9 SCHEDULED due x"));
    log(
        "g1",
        trace("00:00:03.000", "job 'a': upsert CREATED: version 12 SCHEDULED due x"),
        trace("00:00:03.100", "job 'a': replace at version 12 with PAUSED due x: version 13"),
        trace("00:00:03.200", "job 'b': loaded SCHEDULED at version 9: due"));

    assertThat(LostCommits.find(dir).losses()).isEmpty();
  }

  @Test
  void aDeletionFollowedByAWriteWhoseLineTheKillCutOff_isNoLoss() throws Exception {
    log(
        "g0",
        trace("00:00:01.000", "job 'a': upsert UNCHANGED: version 6 SCHEDULED due x"),
        engine("00:00:01.010", "job 'a' unscheduled"));
    // the job was created again at version 8 and the process killed before that line was logged
    log("g1", trace("00:00:03.000", "job 'a': loaded SCHEDULED at version 8: due"));

    assertThat(LostCommits.find(dir).losses()).isEmpty();
  }

  @Test
  void logsWithoutTrace_areCountedAsUntraced() throws Exception {
    log("g0", "00:00:01.000 [main] WARN something");
    log("g1", "00:00:03.000 [main] WARN something");

    LostCommits.Report r = LostCommits.find(dir);

    assertThat(r.losses()).isEmpty();
    assertThat(r.untraced()).isEqualTo(1);
    assertThat(r.render()).contains("1 without TRACE lines");
  }
}
