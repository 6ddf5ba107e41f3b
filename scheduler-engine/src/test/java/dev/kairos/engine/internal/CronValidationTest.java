package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.JobSpec;
import dev.kairos.Schedule;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Cron expressions are checked when a job is scheduled, with messages that say what is wrong. */
class CronValidationTest {
  private final SpecValidator validator =
      new SpecValidator(Set.of("h"), ZoneId.of("Europe/Berlin"));

  private JobSpec spec(String expression, CronSyntax syntax) {
    return JobSpec.named("nightly").handler("h").cron(expression, null, syntax);
  }

  /** The message names the key, the expression, the syntax, the field and the problem. */
  @ParameterizedTest(name = "{0} ''{1}''")
  @CsvSource(
      delimiter = '|',
      textBlock =
"""
QUARTZ | 0 0 25 * * ?      | hour field '25': Value 25 not in range [0, 23]
QUARTZ | 61 0 0 * * ?      | second field '61': Value 61 not in range [0, 59]
QUARTZ | 0 */0 * * * ?     | minute field '*/0': a step (after '/') must be at least 1
QUARTZ | 0 0/0 * * * ?     | minute field '0/0': a step (after '/') must be at least 1
UNIX   | 0 1,3/00 * * *    | hour field '1,3/00': a step (after '/') must be at least 1
QUARTZ | 0 0 0 32 * ?      | day-of-month field '32': Value 32 not in range [1, 31]
QUARTZ | 0 0 0 1 13 ?      | month field '13': Value 13 not in range [1, 12]
QUARTZ | 0 0 0 ? * FUN     | day-of-week field 'FUN': Invalid chars in expression! Expression: FUN Invalid chars: FUN
QUARTZ | 0 0 0 ? * 8       | day-of-week field '8': Value 8 not in range [1, 7]
QUARTZ | 0 0 0 1 1 ? 2200  | year field '2200': Value 2200 not in range [1970, 2099]
QUARTZ | 0 0 12 1 * MON    | day-of-month '1' and day-of-week 'MON': Quartz needs '?' in exactly one of the two
QUARTZ | 0 0 * * *         | expected 6 or 7 fields (second minute hour day-of-month month day-of-week year, the year optional) but found 5
UNIX   | 0 0 32 * *        | day-of-month field '32': Value 32 not in range [1, 31]
UNIX   | 0 0 0 * * ?       | expected 5 fields (minute hour day-of-month month day-of-week) but found 6
UNIX   | 0 0 L * *         | day-of-month field 'L'
SPRING | 0 0 12 * *        | expected 6 fields (second minute hour day-of-month month day-of-week) but found 5
SPRING | 0 60 12 * * *     | minute field '60': Value 60 not in range [0, 59]
SPRING | @bogus            | not a nickname SPRING knows; it takes @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly
UNIX   | @daily            | nicknames such as @daily are SPRING syntax only
QUARTZ | @hourly           | nicknames such as @daily are SPRING syntax only
""")
  void schedule_invalidExpression_namesKeyExpressionFieldAndProblem(
      CronSyntax syntax, String expression, String problem) {
    assertThatThrownBy(() -> validator.validate(spec(expression, syntax)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "job 'nightly': invalid cron expression '" + expression + "' (" + syntax + " syntax): ")
        .hasMessageContaining(problem);
  }

  /** Dates that never occur are rejected as never firing. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "0 0 0 30 2 ?",
        "0 0 0 31 2 ?",
        "0 0 0 30,31 2 ?",
        "0 0 0 31 4 ?",
        "0 0 0 31 6 ?",
        "0 0 0 31 9 ?",
        "0 0 0 31 11 ?",
        "0 0 0 31 4,6,9,11 ?",
        "0 0 0 ? * MON#6",
        "0 0 0 30W 2 ?"
      })
  void schedule_expressionThatNeverFires_isRejected(String expression) {
    assertThatThrownBy(() -> validator.validate(spec(expression, CronSyntax.QUARTZ)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "job 'nightly': cron expression '"
                + expression
                + "' never fires: no date matches its day-of-month, month, day-of-week and year"
                + " fields together");
  }

  /** Rare but real dates are accepted: 29 February, the fifth Thursday of February. */
  @ParameterizedTest
  @CsvSource({
    "0 0 0 29 2 ?, 2028-02-29T00:00:00Z",
    "0 0 0 ? 2 5#5, 2052-02-29T00:00:00Z",
    "0 0 0 L 2 ?, 2025-02-28T00:00:00Z",
    "0 0 0 1 1 ? 2099, 2099-01-01T00:00:00Z"
  })
  void schedule_rareButRealDate_isAcceptedAndFires(String expression, Instant next) {
    JobSpec checked =
        validator.validate(
            JobSpec.named("rare").handler("h").cron(expression, ZoneOffset.UTC, CronSyntax.QUARTZ));

    assertThat(Timetables.of(checked).first(Instant.parse("2024-03-01T00:00:00Z"))).contains(next);
  }

  @ParameterizedTest(name = "{0} ''{1}''")
  @CsvSource(
      delimiter = '|',
      textBlock =
"""
QUARTZ | 0 0/15 9-17 ? * MON-FRI
QUARTZ | 0 0 12 L-2 * ? 2030/2
UNIX   | */15 9-17 * * 1-5
UNIX   | 0 0 1 * MON
SPRING | 0 0 12 * * MON-FRI
SPRING | 0 0 12 L * *
SPRING | @daily
""")
  void schedule_validExpressionInItsSyntax_isAccepted(CronSyntax syntax, String expression) {
    JobSpec checked = validator.validate(spec(expression, syntax));

    assertThat(checked.schedule())
        .isEqualTo(
            new Schedule.Cron(
                expression, ZoneId.of("Europe/Berlin"), syntax, DstPolicy.defaults()));
  }

  /** Whatever the text, validation either accepts it or throws IllegalArgumentException. */
  @Test
  void validate_randomText_failsOnlyWithIllegalArgument() {
    Random random = new Random(7);
    String alphabet = "0123456789*/?-,LW#  MONFRIJANSUx@";
    for (int i = 0; i < 3000; i++) {
      StringBuilder text = new StringBuilder();
      for (int field = 5 + random.nextInt(3); field > 0; field--) {
        for (int k = 1 + random.nextInt(4); k > 0; k--) {
          text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        text.append(' ');
      }
      CronSyntax syntax = CronSyntax.values()[i % 3];
      Schedule.Cron cron = new Schedule.Cron(text.toString(), ZoneOffset.UTC, syntax, null);
      try {
        CronTimetable.validate("fuzz", cron);
      } catch (IllegalArgumentException expected) {
        assertThat(expected).hasMessageStartingWith("job 'fuzz': ");
      }
    }
  }

  @Test
  void schedule_malformedRange_namesField() {
    assertThatThrownBy(() -> validator.validate(spec("0 7-/ * * * ?", CronSyntax.QUARTZ)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("minute field '7-/': malformed");
  }

  @Test
  void schedule_unixExpressionAsQuartz_isRejected() {
    assertThatThrownBy(() -> validator.validate(spec("*/15 9-17 * * 1-5", CronSyntax.QUARTZ)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected 6 or 7 fields");
  }

  @Test
  void schedule_cronWithoutZoneOrPolicy_resolvesDefaultsAndTrims() {
    JobSpec checked =
        validator.validate(
            JobSpec.named("k")
                .handler("h")
                .schedule(new Schedule.Cron("  0 0 2 * * ?  ", null, null, null)));

    assertThat(checked.schedule())
        .isEqualTo(
            new Schedule.Cron(
                "0 0 2 * * ?",
                ZoneId.of("Europe/Berlin"),
                CronSyntax.QUARTZ,
                DstPolicy.defaults()));
  }
}
