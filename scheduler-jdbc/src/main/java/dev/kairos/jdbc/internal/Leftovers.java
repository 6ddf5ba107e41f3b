package dev.kairos.jdbc.internal;

import dev.kairos.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flywaydb.core.api.callback.BaseCallback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB and MySQL: removes what a script made before the run that made it was recorded, so that
 * the script can run again. Their DDL commits by itself, statement by statement, so a connection
 * lost between a script's statements, or between its last statement and Flyway's history row,
 * leaves the script applied (in whole or in part) and unrecorded; the next migration ran it again
 * and failed on the first thing it made ({@code Duplicate column name 'kind'}), at every later
 * {@code open()}. (PostgreSQL and H2 commit a script and its history row together.)
 *
 * <p>A Flyway callback before each script, on Flyway's connection and under its lock (so no other
 * instance migrates meanwhile): the script is still pending, so whatever of its own it finds was
 * left by such a run, and nothing since has written to it (a store opens only once its script is
 * recorded). It is dropped, newest first, and the script then runs whole. What a script makes is
 * read from the script itself: {@code CREATE TABLE}, {@code CREATE INDEX}, {@code CREATE SEQUENCE}
 * and {@code ALTER TABLE … ADD COLUMN}; an {@code UPDATE} can run twice and leaves nothing to drop.
 * A script with any other statement is refused here, before it runs (the scripts' test reads them
 * all).
 *
 * <p>A table is dropped only if it is empty and has exactly the script's columns: one of the
 * application's own that happens to bear the name is refused with its name, untouched, as the
 * script would have refused it, and nothing else is dropped.
 */
final class Leftovers extends BaseCallback {
  private static final Logger log = LoggerFactory.getLogger(Leftovers.class);

  private static final Pattern CREATE_TABLE =
      Pattern.compile("CREATE TABLE (\\w+) \\((.*)\\)[^)]*", Pattern.DOTALL);
  private static final Pattern CREATE_INDEX = Pattern.compile("CREATE INDEX (\\w+) ON (\\w+) .*");
  private static final Pattern CREATE_SEQUENCE = Pattern.compile("CREATE SEQUENCE (\\w+)");
  private static final Pattern ADD_COLUMN =
      Pattern.compile("ALTER TABLE (\\w+) ADD COLUMN\\s+(\\w+) .*", Pattern.DOTALL);
  private static final Pattern COLUMN = Pattern.compile("\\s*(\\w+)\\s+.*");
  private static final List<String> NOT_COLUMNS =
      List.of("PRIMARY", "KEY", "UNIQUE", "INDEX", "CONSTRAINT", "FOREIGN");

  /** What a script makes, one statement's worth. */
  enum Kind {
    TABLE,
    INDEX,
    SEQUENCE,
    COLUMN
  }

  /**
   * One thing a script makes.
   *
   * @param kind what it is
   * @param table the table (for a table or sequence: its name)
   * @param name the index's or column's name; null for a table or sequence
   * @param columns a table's columns, in order; empty otherwise
   */
  record Made(Kind kind, String table, String name, List<String> columns) {
    @Override
    public String toString() {
      return switch (kind) {
        case TABLE -> "table " + table;
        case SEQUENCE -> "sequence " + table;
        case INDEX -> "index " + name + " on " + table;
        case COLUMN -> "column " + table + "." + name;
      };
    }
  }

  private final Dialect dialect;
  private final String prefix;

  Leftovers(Dialect dialect, String prefix) {
    this.dialect = dialect;
    this.prefix = prefix;
  }

  @Override
  public boolean supports(Event event, Context context) {
    return event == Event.BEFORE_EACH_MIGRATE;
  }

  @Override
  public void handle(Event event, Context context) {
    if (event != Event.BEFORE_EACH_MIGRATE || context.getMigrationInfo() == null) {
      return;
    }
    String version = context.getMigrationInfo().getVersion().getVersion();
    String script =
        Migrations.SCRIPTS.stream()
            .filter(s -> String.valueOf(Migrations.version(s)).equals(version))
            .findFirst()
            .orElse(null);
    if (script == null) {
      return; // not one of Kairos's scripts
    }
    List<Made> made = made(script, read(dialect, script), prefix);
    try {
      List<Made> found = drop(context.getConnection(), made);
      if (!found.isEmpty()) {
        log.warn(
            "tables {}*: schema version {} ({}) was applied in part or whole by an earlier run that"
                + " lost its connection before recording it; dropped what it had made ({}), the"
                + " script runs again",
            prefix,
            version,
            script,
            found);
      }
    } catch (SQLException e) {
      throw new StoreException(
          "tables "
              + prefix
              + "*: checking for what an unrecorded run of "
              + script
              + " left failed: "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public String getCallbackName() {
    return "kairos-leftovers";
  }

  /**
   * Drops whatever of {@code made} exists, newest first, after checking that every table among it
   * is one the script made.
   *
   * @return what was found and dropped, in the script's order
   */
  private List<Made> drop(Connection c, List<Made> made) throws SQLException {
    List<Made> found = new ArrayList<>();
    for (Made m : made) {
      if (exists(c, m)) {
        if (m.kind() == Kind.TABLE) {
          refuseUnlessLeft(c, m);
        }
        found.add(m);
      }
    }
    for (int i = found.size() - 1; i >= 0; i--) {
      Made m = found.get(i);
      if (m.kind() == Kind.INDEX && dropsTable(found, m.table())) {
        continue; // goes with its table
      }
      try (Statement st = c.createStatement()) {
        st.execute(
            switch (m.kind()) {
              case TABLE -> "DROP TABLE " + m.table();
              case SEQUENCE -> "DROP SEQUENCE " + m.table();
              case INDEX -> "DROP INDEX " + m.name() + " ON " + m.table();
              case COLUMN -> "ALTER TABLE " + m.table() + " DROP COLUMN " + m.name();
            });
      }
    }
    return found;
  }

  private static boolean dropsTable(List<Made> found, String table) {
    return found.stream()
        .anyMatch(t -> t.kind() == Kind.TABLE && t.table().equalsIgnoreCase(table));
  }

  private void refuseUnlessLeft(Connection c, Made table) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                + dialect.currentSchema()
                + " AND LOWER(table_name) = LOWER(?) ORDER BY ordinal_position")) {
      ps.setString(1, table.table());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(rs.getString(1).toLowerCase(Locale.ROOT));
        }
      }
    }
    boolean empty;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1 FROM " + table.table() + " LIMIT 1")) {
      empty = !rs.next();
    }
    if (!columns.equals(table.columns()) || !empty) {
      throw new StoreException(
          "tables "
              + prefix
              + "*: table "
              + table.table()
              + " exists but is not one Kairos made ("
              + (empty ? "columns " + columns + ", Kairos's " + table.columns() : "it holds rows")
              + "), and the schema version that makes it is not recorded in "
              + prefix
              + Migrations.HISTORY
              + ": rename it, or give Kairos another table prefix; nothing was changed");
    }
  }

  private boolean exists(Connection c, Made m) throws SQLException {
    String sql =
        switch (m.kind()) {
          case TABLE ->
              "SELECT 1 FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND"
                  + " LOWER(table_name) = LOWER(?)";
          case SEQUENCE ->
              "SELECT 1 FROM information_schema.tables WHERE table_type = 'SEQUENCE' AND"
                  + " LOWER(table_name) = LOWER(?)";
          case INDEX ->
              "SELECT 1 FROM information_schema.statistics WHERE LOWER(table_name) = LOWER(?)"
                  + " AND LOWER(index_name) = LOWER(?)";
          case COLUMN ->
              "SELECT 1 FROM information_schema.columns WHERE LOWER(table_name) = LOWER(?)"
                  + " AND LOWER(column_name) = LOWER(?)";
        };
    try (PreparedStatement ps =
        c.prepareStatement(sql + " AND table_schema = " + dialect.currentSchema())) {
      ps.setString(1, m.table());
      if (m.name() != null) {
        ps.setString(2, m.name());
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * A script's text as the dialect's folder holds it.
   *
   * @param dialect whose folder
   * @param script the script's file name
   * @return its text, placeholders unreplaced
   */
  static String read(Dialect dialect, String script) {
    String path = "dev/kairos/jdbc/" + dialect.folder() + "/" + script;
    try (InputStream in = Leftovers.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("no script " + path + " in the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("reading " + path + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * What a script makes, in its order.
   *
   * @param script the script's file name, for messages
   * @param text the script's text
   * @param prefix the table prefix, for {@code ${prefix}}
   * @return one entry per statement that makes something
   * @throws IllegalStateException naming the script and statement if one is none of those known
   */
  static List<Made> made(String script, String text, String prefix) {
    StringBuilder sql = new StringBuilder();
    for (String line : text.replace("${prefix}", prefix).split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    List<Made> made = new ArrayList<>();
    int n = 0;
    for (String statement : sql.toString().split(";\\s*\n")) {
      String s = statement.strip();
      if (s.isEmpty()) {
        continue;
      }
      n++;
      String flat = s.replaceAll("\\s+", " ");
      Matcher m;
      if ((m = CREATE_TABLE.matcher(s)).matches()) {
        made.add(new Made(Kind.TABLE, m.group(1), null, columns(m.group(2))));
      } else if ((m = CREATE_INDEX.matcher(flat)).matches()) {
        made.add(new Made(Kind.INDEX, m.group(2), m.group(1), List.of()));
      } else if ((m = CREATE_SEQUENCE.matcher(flat)).matches()) {
        made.add(new Made(Kind.SEQUENCE, m.group(1), null, List.of()));
      } else if ((m = ADD_COLUMN.matcher(flat)).matches()) {
        made.add(new Made(Kind.COLUMN, m.group(1), m.group(2), List.of()));
      } else if (!flat.startsWith("UPDATE ")) {
        throw new IllegalStateException(
            script
                + ", statement "
                + n
                + ": no rule to undo it if a run is cut after it (a table, index, sequence, added"
                + " column or UPDATE): "
                + flat);
      }
    }
    return made;
  }

  private static List<String> columns(String body) {
    List<String> columns = new ArrayList<>();
    for (String line : body.split("\n")) {
      Matcher m = COLUMN.matcher(line);
      if (m.matches()) {
        String name = m.group(1).toLowerCase(Locale.ROOT);
        if (!NOT_COLUMNS.contains(name.toUpperCase(Locale.ROOT))) {
          columns.add(name);
        }
      }
    }
    return List.copyOf(columns);
  }
}
