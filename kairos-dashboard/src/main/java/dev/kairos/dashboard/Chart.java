package dev.kairos.dashboard;

import dev.kairos.RunOutcome;
import dev.kairos.RunRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A small SVG bar chart of a job's recent runs, oldest left: bar height is the run's lateness
 * (start minus scheduled fire time, on a square-root scale so one outlier does not flatten the
 * rest), colour its outcome. Each bar has a tooltip. Pure server-side rendering, no script.
 */
final class Chart {
  static final int WIDTH = 640;
  static final int HEIGHT = 140;
  private static final int TOP = 16;
  private static final int BOTTOM = 18;

  private Chart() {}

  /** The chart of {@code newestFirst} (a history as the scheduler returns it). */
  static String svg(List<RunRecord> newestFirst) {
    List<RunRecord> runs = new ArrayList<>(newestFirst);
    Collections.reverse(runs);
    long max = 1;
    for (RunRecord r : runs) {
      max = Math.max(max, lateness(r));
    }
    StringBuilder b = new StringBuilder();
    b.append("<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(HEIGHT)
        .append("\" role=\"img\" aria-label=\"lateness and outcome of recent runs\">");
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\" stroke=\"#ddd\"/>");
    b.append("<text x=\"4\" y=\"12\" font-size=\"11\">lateness, max ")
        .append(max)
        .append(" ms</text>");
    if (runs.isEmpty()) {
      b.append("<text x=\"4\" y=\"70\" font-size=\"12\">no runs yet</text>");
    }
    int plot = HEIGHT - TOP - BOTTOM;
    double slot = runs.isEmpty() ? 0 : (double) (WIDTH - 8) / runs.size();
    for (int i = 0; i < runs.size(); i++) {
      RunRecord r = runs.get(i);
      long late = lateness(r);
      int h = Math.max(2, (int) Math.round(plot * Math.sqrt((double) late / max)));
      double x = 4 + i * slot;
      b.append(
              String.format(
                  Locale.ROOT,
                  "<rect class=\"run\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">",
                  x,
                  TOP + plot - h,
                  Math.max(1, slot - 1),
                  h,
                  colour(r.outcome())))
          .append("<title>")
          .append(
              Html.esc(
                  r.scheduledFireTime()
                      + ": "
                      + r.outcome()
                      + (r.backfill() ? ", backfill run" : ", " + late + " ms late")))
          .append("</title></rect>");
    }
    b.append("<text x=\"4\" y=\"")
        .append(HEIGHT - 4)
        .append("\" font-size=\"11\">green: success, red: failure, orange: interrupted</text>");
    return b.append("</svg>").toString();
  }

  /** Start minus fire time, in ms; 0 for a backfill run, which ran a past fire on purpose. */
  private static long lateness(RunRecord r) {
    if (r.start() == null || r.scheduledFireTime() == null || r.backfill()) {
      return 0;
    }
    return Math.max(0, Duration.between(r.scheduledFireTime(), r.start()).toMillis());
  }

  private static String colour(RunOutcome o) {
    if (o == null) {
      return "#999";
    }
    return switch (o) {
      case SUCCESS -> "#2e7d32";
      case FAILURE -> "#c62828";
      case INTERRUPTED -> "#ef6c00";
      case SKIPPED -> "#9e9e9e";
    };
  }
}
