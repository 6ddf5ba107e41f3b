package dev.kairos.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** A markdown table, and the number formats the report uses. */
final class Table {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();
  private boolean numeric = true;

  Table(String... header) {
    this.header = List.of(header);
  }

  /** Aligns every column left (default: the first left, the others right, for numbers). */
  Table text() {
    numeric = false;
    return this;
  }

  Table row(String... cells) {
    rows.add(List.of(cells));
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  String render() {
    StringBuilder sb = new StringBuilder();
    line(sb, header);
    sb.append('|');
    for (int i = 0; i < header.size(); i++) {
      sb.append(i == 0 || !numeric ? "---|" : "--:|");
    }
    sb.append('\n');
    rows.forEach(r -> line(sb, r));
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<String> cells) {
    sb.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }

  // ---- formats ---------------------------------------------------------------------------------

  /** A number with about three significant digits, thousands separated. */
  static String num(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "∞" : "−∞";
    }
    double a = Math.abs(v);
    String pattern = a >= 100 ? "%,.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
    return String.format(Locale.ROOT, pattern, v);
  }

  /** median (min–max), or just the value for a single run. */
  static String spread(Optional<Result.Spread> s) {
    if (s.isEmpty()) {
      return "–";
    }
    Result.Spread x = s.get();
    if (x.runs() == 1 || x.min() == x.max()) {
      return num(x.median());
    }
    return num(x.median()) + " (" + num(x.min()) + "–" + num(x.max()) + ")";
  }

  /** The median alone. */
  static String median(Optional<Result.Spread> s) {
    return s.map(x -> num(x.median())).orElse("–");
  }

  /** A ratio such as 2.4×. */
  static String ratio(double r) {
    if (Double.isNaN(r) || Double.isInfinite(r)) {
      return "–";
    }
    return (r >= 100 ? String.format(Locale.ROOT, "%,.0f", r) : num(r)) + "×";
  }
}
