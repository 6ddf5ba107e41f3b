package dev.kairos.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: columns padded to their widest cell, two spaces apart. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... header) {
    rows.add(header);
  }

  /** Adds a row; null cells print empty, line breaks as spaces. */
  Table row(Object... cells) {
    String[] r = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      r[i] = cells[i] == null ? "" : cells[i].toString().replaceAll("\\R", " ");
    }
    rows.add(r);
    return this;
  }

  void print(PrintWriter out) {
    int columns = rows.get(0).length;
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        b.append(r[i]);
        if (i < columns - 1) {
          b.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      out.println(b.toString().stripTrailing());
    }
  }
}
