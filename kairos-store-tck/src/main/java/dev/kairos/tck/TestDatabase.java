package dev.kairos.tck;

import dev.kairos.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A database a test stores jobs in, and reads or edits behind the store's back. */
public interface TestDatabase {
  /**
   * A store builder over this database (prefix and options still to be set).
   *
   * @return a new builder
   */
  JdbcStore.Builder builder();

  /**
   * A plain connection to the database, outside any store's pool.
   *
   * @return a new connection; the caller closes it
   * @throws java.sql.SQLException if the database cannot be reached
   */
  Connection connect() throws SQLException;

  /**
   * Runs one SQL update; returns the row count.
   *
   * @param sql the statement
   * @return the row count
   */
  default int execute(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      return s.executeUpdate(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /**
   * The first row of a query as column → value (names lower case), if any.
   *
   * @param sql the query
   * @return the first row, or empty if there is none
   */
  default Optional<Map<String, Object>> row(String sql) {
    return rows(sql).stream().findFirst();
  }

  /**
   * Every row of a query, in its order, each as column → value (names lower case; a CLOB as its
   * text).
   *
   * @param sql the query
   * @return the rows
   */
  default List<Map<String, Object>> rows(String sql) {
    List<Map<String, Object>> out = new ArrayList<>();
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          row.put(
              md.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT),
              v instanceof java.sql.Clob cl ? cl.getSubString(1, (int) cl.length()) : v);
        }
        out.add(row);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
