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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flywaydb.core.api.callback.BaseCallback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * H2, MariaDB and MySQL: undoes what a run of a script did before that run was recorded, so that
 * the script can run again. Their DDL commits by itself, statement by statement, so a connection
 * lost (MariaDB, MySQL) or a process killed (all three) between a script's statements, or between
 * its last statement and Flyway's history row, leaves the script applied in part or whole and
 * unrecorded; the next migration ran it again and failed on the first thing it had made ({@code
 * Duplicate column name 'kind'}), at every later {@code open()}. (PostgreSQL commits a script and
 * its history row together.)
 *
 * <p>A Flyway callback before each script, on Flyway's connection and under its lock (so no other
 * instance migrates meanwhile): the script is still pending, so whatever of its own it finds was
 * left by such a run, and nothing since has written to it (a store opens only once its script is
 * recorded). What it made is dropped, newest first; an index it dropped is made again, as the
 * script that made it did; the script then runs whole. What a script does is read from the script
 * itself: {@code CREATE TABLE}, {@code CREATE INDEX}, {@code CREATE SEQUENCE}, {@code ALTER TABLE …
 * ADD COLUMN} and {@code DROP INDEX} are undone; an {@code UPDATE} and the cache sizes of a
 * sequence or an identity column can be set twice. A script with any other statement is refused
 * here, before it runs ({@code LeftoversTest} reads them all).
 *
 * <p>A table is dropped only if it is empty and has exactly the script's columns: one of the
 * application's own that happens to bear the name is refused with its name, untouched, as the
 * script would have refused it, and nothing else is changed.
 */
final class Leftovers extends BaseCallback {
  private static final Logger log = LoggerFactory.getLogger(Leftovers.class);

  private static final Pattern CREATE_TABLE =
      Pattern.compile("CREATE TABLE (\\w+) \\((.*)\\)[^)]*", Pattern.DOTALL);
  private static final Pattern CREATE_INDEX = Pattern.compile("CREATE INDEX (\\w+) ON (\\w+) .*");
  private static final Pattern CREATE_SEQUENCE = Pattern.compile("CREATE SEQUENCE (\\w+)");
  private static final Pattern DROP_INDEX = Pattern.compile("DROP INDEX (\\w+)");
  private static final Pattern REPEATABLE =
      Pattern.compile(
          "UPDATE .*|ALTER SEQUENCE \\w+ CACHE \\d+|ALTER TABLE \\w+ ALTER COLUMN \\w+ SET CACHE \\d+");
  private static final Pattern ADD_COLUMN =
      Pattern.compile("ALTER TABLE (\\w+) ADD COLUMN\\s+(\\w+) .*", Pattern.DOTALL);
  private static final Pattern COLUMN = Pattern.compile("\\s*(\\w+)\\s+.*");

  /** The name H2 gives the copy of a table it alters: {@code <table>_COPY_<session>_<n>}. */
  private static final Pattern COPY = Pattern.compile("(\\w+)_COPY_\\d+_\\d+");

  private static final List<String> NOT_COLUMNS =
      List.of("PRIMARY", "KEY", "UNIQUE", "INDEX", "CONSTRAINT", "FOREIGN");

  /** What a script does, one statement's worth. */
  enum Kind {
    TABLE,
    INDEX,
    SEQUENCE,
    COLUMN,
    /** An index the script drops, made by an earlier script. */
    DROPPED_INDEX
  }

  /**
   * One thing a script makes or drops.
   *
   * @param kind what it is
   * @param table the table (for a table or sequence: its name)
   * @param name the index's or column's name; null for a table or sequence
   * @param columns a table's columns, in order; empty otherwise
   * @param restore for a dropped index, the statement that made it; null otherwise
   */
  record Made(Kind kind, String table, String name, List<String> columns, String restore) {
    Made(Kind kind, String table, String name, List<String> columns) {
      this(kind, table, name, columns, null);
    }

    @Override
    public String toString() {
      return switch (kind) {
        case TABLE -> "table " + table;
        case SEQUENCE -> "sequence " + table;
        case INDEX, DROPPED_INDEX -> "index " + name + " on " + table;
        case COLUMN -> "column " + table + "." + name;
      };
    }
  }

  private final Dialect dialect;
  private final String prefix;

  /** What each script does: read at the first script to run. */
  private Map<String, List<Made>> scripts;

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
    if (event != Event.BEFORE_EACH_MIGRATE
        || context.getMigrationInfo() == null
        || context.getMigrationInfo().getVersion() == null) {
      return; // not a versioned script
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
    if (scripts == null) {
      scripts = all(dialect, prefix);
    }
    List<Made> made = scripts.get(script);
    try {
      if (dialect == Dialect.H2) {
        restoreCopies(context.getConnection(), script);
      }
      List<Made> undone = undo(context.getConnection(), made);
      if (!undone.isEmpty()) {
        log.warn(
            "tables {}*: schema version {} ({}) was applied in part or whole by an earlier run that"
                + " ended before recording it (connection lost, process killed); undid what it had"
                + " done, the script runs again (dropped what it made, made again an index it"
                + " dropped): {}",
            prefix,
            version,
            script,
            undone);
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

  /**
   * H2: mends a table that a killed {@code ALTER TABLE} left under its copy's name. H2 adds (or
   * drops) a column by copying the table: it makes {@code <table>_COPY_<session>_<n>} with the new
   * columns, copies the rows, makes the indexes and constraints as {@code <copy>_<name>}, drops the
   * table, then renames the copy and its parts; each step but the renames commits by itself. A
   * process killed after the drop left the table missing and its rows in the copy (every later open
   * failed: {@code Table "KAIROS_JOBS" not found}); killed before it, an orphan copy. The copy of a
   * missing table is renamed back, with its parts (it has every row); an orphan copy is dropped
   * (its table is whole).
   */
  private void restoreCopies(Connection c, String script) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
                    + " AND table_schema = CURRENT_SCHEMA");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        tables.add(rs.getString(1));
      }
    }
    for (String copy : tables) {
      Matcher m = COPY.matcher(copy);
      if (!m.matches() || !kairosTable(m.group(1))) {
        continue;
      }
      String table = m.group(1);
      try (Statement st = c.createStatement()) {
        if (tables.stream().anyMatch(t -> t.equalsIgnoreCase(table))) {
          st.execute("DROP TABLE " + quoted(copy));
          log.warn(
              "tables {}*: dropped {}, a copy of {} that an ALTER TABLE killed before its end left"
                  + " ({} runs again)",
              prefix,
              copy,
              table,
              script);
          continue;
        }
        st.execute("ALTER TABLE " + quoted(copy) + " RENAME TO " + quoted(table));
        for (String index : names(c, "indexes", "index_name", table)) {
          renameCopied(st, "ALTER INDEX ", index, " RENAME TO ", copy);
        }
        for (String constraint : names(c, "table_constraints", "constraint_name", table)) {
          renameCopied(
              st, "ALTER TABLE " + quoted(table) + " RENAME CONSTRAINT ", constraint, " TO ", copy);
        }
        log.warn(
            "tables {}*: {} was missing and its rows were in {}, the copy an ALTER TABLE killed"
                + " before its end left; renamed back ({} runs again)",
            prefix,
            table,
            copy,
            script);
      }
    }
  }

  /** Renames an index or constraint H2 named {@code <copy>_<name>} back to its name. */
  private static void renameCopied(Statement st, String lead, String name, String join, String copy)
      throws SQLException {
    if (name.startsWith(copy + "_")) {
      st.execute(lead + quoted(name) + join + quoted(name.substring(copy.length() + 1)));
    }
  }

  private boolean kairosTable(String name) {
    return scripts.values().stream()
        .flatMap(List::stream)
        .anyMatch(m -> m.kind() == Kind.TABLE && m.table().equalsIgnoreCase(name));
  }

  private static List<String> names(Connection c, String view, String column, String table)
      throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + column
                + " FROM information_schema."
                + view
                + " WHERE table_schema = CURRENT_SCHEMA AND table_name = ?")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }

  private static String quoted(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  @Override
  public String getCallbackName() {
    return "kairos-leftovers";
  }

  /**
   * Undoes whatever of {@code made} was done, newest first, after checking that every table among
   * it is one the script made: drops what exists of what it makes, makes again what is missing of
   * the indexes it drops.
   *
   * @return what was undone, in the script's order
   */
  private List<Made> undo(Connection c, List<Made> made) throws SQLException {
    List<Made> done = new ArrayList<>();
    for (Made m : made) {
      if (m.kind() == Kind.DROPPED_INDEX) {
        if (!exists(c, m) && exists(c, new Made(Kind.TABLE, m.table(), null, List.of()))) {
          done.add(m);
        }
      } else if (exists(c, m)) {
        if (m.kind() == Kind.TABLE) {
          refuseUnlessLeft(c, m);
        }
        done.add(m);
      }
    }
    for (int i = done.size() - 1; i >= 0; i--) {
      Made m = done.get(i);
      if (m.kind() == Kind.INDEX && dropsTable(done, m.table())) {
        continue; // goes with its table
      }
      try (Statement st = c.createStatement()) {
        st.execute(
            switch (m.kind()) {
              case TABLE -> "DROP TABLE " + m.table();
              case SEQUENCE -> "DROP SEQUENCE " + m.table();
              case INDEX ->
                  "DROP INDEX " + m.name() + (dialect == Dialect.H2 ? "" : " ON " + m.table());
              case COLUMN -> "ALTER TABLE " + m.table() + " DROP COLUMN " + m.name();
              case DROPPED_INDEX -> m.restore();
            });
      }
    }
    return done;
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
    boolean h2 = dialect == Dialect.H2;
    String sql =
        switch (m.kind()) {
          case TABLE ->
              "SELECT 1 FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND"
                  + " LOWER(table_name) = LOWER(?) AND table_schema = ";
          case SEQUENCE ->
              h2
                  ? "SELECT 1 FROM information_schema.sequences WHERE LOWER(sequence_name) ="
                      + " LOWER(?) AND sequence_schema = "
                  : "SELECT 1 FROM information_schema.tables WHERE table_type = 'SEQUENCE' AND"
                      + " LOWER(table_name) = LOWER(?) AND table_schema = ";
          case INDEX, DROPPED_INDEX ->
              "SELECT 1 FROM information_schema."
                  + (h2 ? "indexes" : "statistics")
                  + " WHERE LOWER(table_name) = LOWER(?) AND LOWER(index_name) = LOWER(?) AND"
                  + " table_schema = ";
          case COLUMN ->
              "SELECT 1 FROM information_schema.columns WHERE LOWER(table_name) = LOWER(?)"
                  + " AND LOWER(column_name) = LOWER(?) AND table_schema = ";
        };
    try (PreparedStatement ps = c.prepareStatement(sql + dialect.currentSchema())) {
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
   * What a script of the dialect's folder does, in its order.
   *
   * @param dialect whose folder
   * @param script the script's file name
   * @param prefix the table prefix, for {@code ${prefix}}
   * @return one entry per statement that makes or drops something
   * @throws IllegalStateException naming the script and statement if one is none of those known
   */
  static List<Made> made(Dialect dialect, String script, String prefix) {
    return all(dialect, prefix).get(script);
  }

  /**
   * What each script of the dialect's folder does, read once, in order: an index a script drops is
   * known by the statement of the earlier script that made it.
   */
  private static Map<String, List<Made>> all(Dialect dialect, String prefix) {
    Map<String, String> indexes = new HashMap<>();
    Map<String, List<Made>> all = new HashMap<>();
    for (String script : Migrations.SCRIPTS) {
      String text = read(dialect, script);
      all.put(script, made(script, text, prefix, Map.copyOf(indexes)));
      for (String s : statements(text, prefix)) {
        Matcher m = CREATE_INDEX.matcher(s.replaceAll("\\s+", " "));
        if (m.matches()) {
          indexes.put(m.group(1).toLowerCase(Locale.ROOT), s);
        }
      }
    }
    return all;
  }

  /**
   * What a script does, in its order.
   *
   * @param script the script's file name, for messages
   * @param text the script's text
   * @param prefix the table prefix, for {@code ${prefix}}
   * @param indexes the statements of earlier scripts that make indexes, by lower-case index name
   * @return one entry per statement that makes or drops something
   * @throws IllegalStateException naming the script and statement if one is none of those known
   */
  static List<Made> made(String script, String text, String prefix, Map<String, String> indexes) {
    List<Made> made = new ArrayList<>();
    int n = 0;
    for (String s : statements(text, prefix)) {
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
      } else if ((m = DROP_INDEX.matcher(flat)).matches()
          && indexes.containsKey(m.group(1).toLowerCase(Locale.ROOT))) {
        String create = indexes.get(m.group(1).toLowerCase(Locale.ROOT));
        Matcher c = CREATE_INDEX.matcher(create.replaceAll("\\s+", " "));
        c.matches();
        made.add(new Made(Kind.DROPPED_INDEX, c.group(2), c.group(1), List.of(), create));
      } else if (!REPEATABLE.matcher(flat).matches()) {
        throw new IllegalStateException(
            script
                + ", statement "
                + n
                + ": no rule to undo it if a run is cut after it (a table, index, sequence, added"
                + " column, index dropped that an earlier script made, UPDATE or cache size): "
                + flat);
      }
    }
    return made;
  }

  /**
   * A script's statements, comments left out, {@code ${prefix}} replaced: each ends with a
   * semicolon at the end of a line.
   *
   * @param text the script's text
   * @param prefix the table prefix
   * @return the statements, without their semicolons, in order
   */
  static List<String> statements(String text, String prefix) {
    StringBuilder sql = new StringBuilder();
    for (String line : text.replace("${prefix}", prefix).split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    List<String> statements = new ArrayList<>();
    for (String statement : sql.toString().split(";\\s*\n")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
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
