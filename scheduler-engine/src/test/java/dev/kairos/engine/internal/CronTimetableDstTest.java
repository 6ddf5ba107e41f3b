package dev.kairos.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.CronSyntax;
import dev.kairos.DstPolicy;
import dev.kairos.Schedule;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fire times through daylight-saving transitions, per policy, as tables. Each row: zone,
 * expression, gap and overlap policy, the instant to start from, and the fires that follow it in
 * local time with their offset. 2024 transitions: Berlin gap 31 Mar 02:00-03:00, overlap 27 Oct
 * 02:00-03:00; New York gap 10 Mar 02:00-03:00, overlap 3 Nov 01:00-02:00; Lord Howe overlap 7 Apr
 * 01:30-02:00 (+11:00 then +10:30), gap 6 Oct 02:00-02:30.
 */
class CronTimetableDstTest {

  @ParameterizedTest(name = "{0} ''{1}'' {2}/{3} from {4}")
  @CsvSource(
      delimiter = '|',
      textBlock =
"""
# Berlin, daily and weekly at a time in the gap / overlap
Europe/Berlin | 0 30 2 * * ?   | SHIFT | FIRST | 2024-03-30T12:00+01:00 | 2024-03-31T03:00+02:00 2024-04-01T02:30+02:00
Europe/Berlin | 0 30 2 * * ?   | SKIP  | FIRST | 2024-03-30T12:00+01:00 | 2024-04-01T02:30+02:00 2024-04-02T02:30+02:00
Europe/Berlin | 0 30 2 * * ?   | SHIFT | FIRST | 2024-10-26T12:00+02:00 | 2024-10-27T02:30+02:00 2024-10-28T02:30+01:00
Europe/Berlin | 0 30 2 * * ?   | SHIFT | LAST  | 2024-10-26T12:00+02:00 | 2024-10-27T02:30+01:00 2024-10-28T02:30+01:00
Europe/Berlin | 0 30 2 * * ?   | SHIFT | BOTH  | 2024-10-26T12:00+02:00 | 2024-10-27T02:30+02:00 2024-10-27T02:30+01:00 2024-10-28T02:30+01:00
Europe/Berlin | 0 30 2 ? * SUN | SHIFT | FIRST | 2024-03-30T12:00+01:00 | 2024-03-31T03:00+02:00 2024-04-07T02:30+02:00
Europe/Berlin | 0 30 2 ? * SUN | SKIP  | FIRST | 2024-03-30T12:00+01:00 | 2024-04-07T02:30+02:00 2024-04-14T02:30+02:00
Europe/Berlin | 0 30 2 ? * SUN | SKIP  | FIRST | 2024-10-26T12:00+02:00 | 2024-10-27T02:30+02:00 2024-11-03T02:30+01:00
Europe/Berlin | 0 30 2 ? * SUN | SKIP  | LAST  | 2024-10-26T12:00+02:00 | 2024-10-27T02:30+01:00 2024-11-03T02:30+01:00
Europe/Berlin | 0 30 2 ? * SUN | SKIP  | BOTH  | 2024-10-26T12:00+02:00 | 2024-10-27T02:30+02:00 2024-10-27T02:30+01:00 2024-11-03T02:30+01:00
# Berlin: two gap times shift to one fire; a match at the gap's end is not doubled, nor skipped
Europe/Berlin | 0 15,45 2 * * ? | SHIFT | FIRST | 2024-03-30T12:00+01:00 | 2024-03-31T03:00+02:00 2024-04-01T02:15+02:00
Europe/Berlin | 0 0 2,3 * * ?   | SHIFT | FIRST | 2024-03-30T12:00+01:00 | 2024-03-31T03:00+02:00 2024-04-01T02:00+02:00
Europe/Berlin | 0 0 2,3 * * ?   | SKIP  | FIRST | 2024-03-30T12:00+01:00 | 2024-03-31T03:00+02:00 2024-04-01T02:00+02:00
# Berlin: every minute, every 30 minutes, every hour follow real time whatever the policy
Europe/Berlin | 0 * * * * ?    | SHIFT | FIRST | 2024-03-31T01:58+01:00 | 2024-03-31T01:59+01:00 2024-03-31T03:00+02:00 2024-03-31T03:01+02:00
Europe/Berlin | 0 * * * * ?    | SKIP  | FIRST | 2024-03-31T01:58+01:00 | 2024-03-31T01:59+01:00 2024-03-31T03:00+02:00 2024-03-31T03:01+02:00
Europe/Berlin | 0 * * * * ?    | SHIFT | FIRST | 2024-10-27T02:58+02:00 | 2024-10-27T02:59+02:00 2024-10-27T02:00+01:00 2024-10-27T02:01+01:00
Europe/Berlin | 0 * * * * ?    | SHIFT | LAST  | 2024-10-27T02:58+02:00 | 2024-10-27T02:59+02:00 2024-10-27T02:00+01:00 2024-10-27T02:01+01:00
Europe/Berlin | 0 * * * * ?    | SHIFT | BOTH  | 2024-10-27T02:58+02:00 | 2024-10-27T02:59+02:00 2024-10-27T02:00+01:00 2024-10-27T02:01+01:00
Europe/Berlin | 0 0/30 * * * ? | SHIFT | FIRST | 2024-03-31T01:15+01:00 | 2024-03-31T01:30+01:00 2024-03-31T03:00+02:00 2024-03-31T03:30+02:00
Europe/Berlin | 0 0/30 * * * ? | SKIP  | FIRST | 2024-03-31T01:15+01:00 | 2024-03-31T01:30+01:00 2024-03-31T03:00+02:00 2024-03-31T03:30+02:00
Europe/Berlin | 0 0/30 * * * ? | SHIFT | FIRST | 2024-10-27T01:45+02:00 | 2024-10-27T02:00+02:00 2024-10-27T02:30+02:00 2024-10-27T02:00+01:00 2024-10-27T02:30+01:00 2024-10-27T03:00+01:00
Europe/Berlin | 0 0/30 * * * ? | SHIFT | LAST  | 2024-10-27T01:45+02:00 | 2024-10-27T02:00+02:00 2024-10-27T02:30+02:00 2024-10-27T02:00+01:00 2024-10-27T02:30+01:00 2024-10-27T03:00+01:00
Europe/Berlin | 0 30 * * * ?   | SHIFT | FIRST | 2024-03-31T01:00+01:00 | 2024-03-31T01:30+01:00 2024-03-31T03:30+02:00 2024-03-31T04:30+02:00
Europe/Berlin | 0 30 * * * ?   | SKIP  | FIRST | 2024-03-31T01:00+01:00 | 2024-03-31T01:30+01:00 2024-03-31T03:30+02:00 2024-03-31T04:30+02:00
Europe/Berlin | 0 30 * * * ?   | SHIFT | FIRST | 2024-10-27T01:00+02:00 | 2024-10-27T01:30+02:00 2024-10-27T02:30+02:00 2024-10-27T02:30+01:00 2024-10-27T03:30+01:00
Europe/Berlin | 0 30 * * * ?   | SHIFT | LAST  | 2024-10-27T01:00+02:00 | 2024-10-27T01:30+02:00 2024-10-27T02:30+02:00 2024-10-27T02:30+01:00 2024-10-27T03:30+01:00
Europe/Berlin | 0 0 * * * ?    | SHIFT | FIRST | 2024-03-31T00:30+01:00 | 2024-03-31T01:00+01:00 2024-03-31T03:00+02:00 2024-03-31T04:00+02:00
# Berlin: not periodic, so the policy applies (every 2 hours; 01:30 and 02:30)
Europe/Berlin | 0 0 0/2 * * ?  | SHIFT | FIRST | 2024-03-31T00:30+01:00 | 2024-03-31T03:00+02:00 2024-03-31T04:00+02:00
Europe/Berlin | 0 0 0/2 * * ?  | SKIP  | FIRST | 2024-03-31T00:30+01:00 | 2024-03-31T04:00+02:00 2024-03-31T06:00+02:00
Europe/Berlin | 0 0 0/2 * * ?  | SHIFT | FIRST | 2024-10-27T01:30+02:00 | 2024-10-27T02:00+02:00 2024-10-27T04:00+01:00
Europe/Berlin | 0 0 0/2 * * ?  | SHIFT | LAST  | 2024-10-27T01:30+02:00 | 2024-10-27T02:00+01:00 2024-10-27T04:00+01:00
Europe/Berlin | 0 0 0/2 * * ?  | SHIFT | BOTH  | 2024-10-27T01:30+02:00 | 2024-10-27T02:00+02:00 2024-10-27T02:00+01:00 2024-10-27T04:00+01:00
Europe/Berlin | 0 30 1,2 * * ? | SHIFT | FIRST | 2024-03-31T00:00+01:00 | 2024-03-31T01:30+01:00 2024-03-31T03:00+02:00 2024-04-01T01:30+02:00
Europe/Berlin | 0 30 1,2 * * ? | SHIFT | FIRST | 2024-10-27T00:00+02:00 | 2024-10-27T01:30+02:00 2024-10-27T02:30+02:00 2024-10-28T01:30+01:00
Europe/Berlin | 0 30 1,2 * * ? | SHIFT | LAST  | 2024-10-27T00:00+02:00 | 2024-10-27T01:30+02:00 2024-10-27T02:30+01:00 2024-10-28T01:30+01:00
# New York
America/New_York | 0 30 2 * * ?   | SHIFT | FIRST | 2024-03-09T12:00-05:00 | 2024-03-10T03:00-04:00 2024-03-11T02:30-04:00
America/New_York | 0 30 2 * * ?   | SKIP  | FIRST | 2024-03-09T12:00-05:00 | 2024-03-11T02:30-04:00 2024-03-12T02:30-04:00
America/New_York | 0 30 1 * * ?   | SHIFT | FIRST | 2024-11-02T12:00-04:00 | 2024-11-03T01:30-04:00 2024-11-04T01:30-05:00
America/New_York | 0 30 1 * * ?   | SHIFT | LAST  | 2024-11-02T12:00-04:00 | 2024-11-03T01:30-05:00 2024-11-04T01:30-05:00
America/New_York | 0 30 1 * * ?   | SHIFT | BOTH  | 2024-11-02T12:00-04:00 | 2024-11-03T01:30-04:00 2024-11-03T01:30-05:00 2024-11-04T01:30-05:00
America/New_York | 0 30 2 ? * SUN | SHIFT | FIRST | 2024-03-09T12:00-05:00 | 2024-03-10T03:00-04:00 2024-03-17T02:30-04:00
America/New_York | 0 30 2 ? * SUN | SKIP  | FIRST | 2024-03-09T12:00-05:00 | 2024-03-17T02:30-04:00 2024-03-24T02:30-04:00
America/New_York | 0 30 1 ? * SUN | SHIFT | FIRST | 2024-11-02T12:00-04:00 | 2024-11-03T01:30-04:00 2024-11-10T01:30-05:00
America/New_York | 0 30 1 ? * SUN | SHIFT | LAST  | 2024-11-02T12:00-04:00 | 2024-11-03T01:30-05:00 2024-11-10T01:30-05:00
America/New_York | 0 30 1 ? * SUN | SHIFT | BOTH  | 2024-11-02T12:00-04:00 | 2024-11-03T01:30-04:00 2024-11-03T01:30-05:00 2024-11-10T01:30-05:00
America/New_York | 0 * * * * ?    | SHIFT | FIRST | 2024-03-10T01:58-05:00 | 2024-03-10T01:59-05:00 2024-03-10T03:00-04:00 2024-03-10T03:01-04:00
America/New_York | 0 * * * * ?    | SHIFT | FIRST | 2024-11-03T01:58-04:00 | 2024-11-03T01:59-04:00 2024-11-03T01:00-05:00 2024-11-03T01:01-05:00
America/New_York | 0 0/30 * * * ? | SKIP  | FIRST | 2024-03-10T01:15-05:00 | 2024-03-10T01:30-05:00 2024-03-10T03:00-04:00 2024-03-10T03:30-04:00
America/New_York | 0 0/30 * * * ? | SHIFT | FIRST | 2024-11-03T00:45-04:00 | 2024-11-03T01:00-04:00 2024-11-03T01:30-04:00 2024-11-03T01:00-05:00 2024-11-03T01:30-05:00 2024-11-03T02:00-05:00
America/New_York | 0 0 * * * ?    | SHIFT | LAST  | 2024-11-03T00:30-04:00 | 2024-11-03T01:00-04:00 2024-11-03T01:00-05:00 2024-11-03T02:00-05:00
America/New_York | 0 0 * * * ?    | SHIFT | FIRST | 2024-03-10T00:30-05:00 | 2024-03-10T01:00-05:00 2024-03-10T03:00-04:00 2024-03-10T04:00-04:00
# Lord Howe: half-hour transitions
Australia/Lord_Howe | 0 15 2 * * ?   | SHIFT | FIRST | 2024-10-05T12:00+10:30 | 2024-10-06T02:30+11:00 2024-10-07T02:15+11:00
Australia/Lord_Howe | 0 15 2 * * ?   | SKIP  | FIRST | 2024-10-05T12:00+10:30 | 2024-10-07T02:15+11:00 2024-10-08T02:15+11:00
Australia/Lord_Howe | 0 45 1 * * ?   | SHIFT | FIRST | 2024-04-06T12:00+11:00 | 2024-04-07T01:45+11:00 2024-04-08T01:45+10:30
Australia/Lord_Howe | 0 45 1 * * ?   | SHIFT | LAST  | 2024-04-06T12:00+11:00 | 2024-04-07T01:45+10:30 2024-04-08T01:45+10:30
Australia/Lord_Howe | 0 45 1 * * ?   | SHIFT | BOTH  | 2024-04-06T12:00+11:00 | 2024-04-07T01:45+11:00 2024-04-07T01:45+10:30 2024-04-08T01:45+10:30
Australia/Lord_Howe | 0 15 2 ? * SUN | SHIFT | FIRST | 2024-10-05T12:00+10:30 | 2024-10-06T02:30+11:00 2024-10-13T02:15+11:00
Australia/Lord_Howe | 0 15 2 ? * SUN | SKIP  | FIRST | 2024-10-05T12:00+10:30 | 2024-10-13T02:15+11:00 2024-10-20T02:15+11:00
Australia/Lord_Howe | 0 45 1 ? * SUN | SHIFT | LAST  | 2024-04-06T12:00+11:00 | 2024-04-07T01:45+10:30 2024-04-14T01:45+10:30
Australia/Lord_Howe | 0 45 1 ? * SUN | SHIFT | BOTH  | 2024-04-06T12:00+11:00 | 2024-04-07T01:45+11:00 2024-04-07T01:45+10:30 2024-04-14T01:45+10:30
Australia/Lord_Howe | 0 * * * * ?    | SHIFT | FIRST | 2024-10-06T01:58+10:30 | 2024-10-06T01:59+10:30 2024-10-06T02:30+11:00 2024-10-06T02:31+11:00
Australia/Lord_Howe | 0 * * * * ?    | SHIFT | FIRST | 2024-04-07T01:58+11:00 | 2024-04-07T01:59+11:00 2024-04-07T01:30+10:30 2024-04-07T01:31+10:30
Australia/Lord_Howe | 0 0/30 * * * ? | SHIFT | FIRST | 2024-10-06T01:15+10:30 | 2024-10-06T01:30+10:30 2024-10-06T02:30+11:00 2024-10-06T03:00+11:00
Australia/Lord_Howe | 0 0/30 * * * ? | SKIP  | FIRST | 2024-10-06T01:15+10:30 | 2024-10-06T01:30+10:30 2024-10-06T02:30+11:00 2024-10-06T03:00+11:00
Australia/Lord_Howe | 0 0/30 * * * ? | SHIFT | FIRST | 2024-04-07T01:15+11:00 | 2024-04-07T01:30+11:00 2024-04-07T01:30+10:30 2024-04-07T02:00+10:30
Australia/Lord_Howe | 0 0/30 * * * ? | SHIFT | LAST  | 2024-04-07T01:15+11:00 | 2024-04-07T01:30+11:00 2024-04-07T01:30+10:30 2024-04-07T02:00+10:30
# Lord Howe: every hour is not periodic across a half-hour transition, so the policy applies
Australia/Lord_Howe | 0 0 * * * ?    | SHIFT | FIRST | 2024-10-06T00:30+10:30 | 2024-10-06T01:00+10:30 2024-10-06T02:30+11:00 2024-10-06T03:00+11:00
Australia/Lord_Howe | 0 0 * * * ?    | SKIP  | FIRST | 2024-10-06T00:30+10:30 | 2024-10-06T01:00+10:30 2024-10-06T03:00+11:00 2024-10-06T04:00+11:00
Australia/Lord_Howe | 0 45 * * * ?   | SHIFT | FIRST | 2024-04-07T00:30+11:00 | 2024-04-07T00:45+11:00 2024-04-07T01:45+11:00 2024-04-07T02:45+10:30
Australia/Lord_Howe | 0 45 * * * ?   | SHIFT | LAST  | 2024-04-07T00:30+11:00 | 2024-04-07T00:45+11:00 2024-04-07T01:45+10:30 2024-04-07T02:45+10:30
Australia/Lord_Howe | 0 45 * * * ?   | SHIFT | BOTH  | 2024-04-07T00:30+11:00 | 2024-04-07T00:45+11:00 2024-04-07T01:45+11:00 2024-04-07T01:45+10:30 2024-04-07T02:45+10:30
""")
  void successors_throughTransition_followDstRule(
      String zone,
      String expression,
      DstPolicy.Gap gap,
      DstPolicy.Overlap overlap,
      String from,
      String expected) {
    CronTimetable timetable =
        CronTimetable.of(
            new Schedule.Cron(
                expression, ZoneId.of(zone), CronSyntax.QUARTZ, new DstPolicy(gap, overlap)),
            null);
    List<Instant> want =
        Arrays.stream(expected.trim().split("\\s+"))
            .map(s -> OffsetDateTime.parse(s).toInstant())
            .toList();

    List<Instant> got = new ArrayList<>();
    Optional<Instant> fire = timetable.first(OffsetDateTime.parse(from).toInstant());
    while (got.size() < want.size() && fire.isPresent()) {
      got.add(fire.get());
      fire = timetable.successor(fire.get());
    }

    assertThat(got).containsExactlyElementsOf(want);
    // The counting path (used by the misfire rule) agrees with the walk.
    Instant first = want.get(0);
    Instant last = want.get(want.size() - 1);
    assertThat(timetable.countDue(first, last, Long.MAX_VALUE)).isEqualTo(want.size());
    assertThat(timetable.countDue(first, last.minusSeconds(1), Long.MAX_VALUE))
        .isEqualTo(want.size() - 1);
    for (int i = 0; i < want.size(); i++) {
      assertThat(timetable.nth(first, i)).contains(want.get(i));
    }
  }
}
