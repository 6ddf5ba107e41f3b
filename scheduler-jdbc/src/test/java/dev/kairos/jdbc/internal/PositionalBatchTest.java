package dev.kairos.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** Named parameters sent by position: the SQL rewritten, and typed values and nulls bound. */
class PositionalBatchTest {

  @Test
  void positional_replacesEachNameInOrder_leavesQuotesAndCastsAlone() {
    Map<String, List<Integer>> names = new HashMap<>();
    String sql =
        PositionalBatch.positional(
            "UPDATE t SET a = :a, b = ':b', c = x::numeric, d = :a WHERE k = :key_1", names);
    assertThat(sql).isEqualTo("UPDATE t SET a = ?, b = ':b', c = x::numeric, d = ? WHERE k = ?");
    assertThat(names).containsOnly(Map.entry("a", List.of(1, 2)), Map.entry("key_1", List.of(3)));
  }

  @Test
  void batch_bindsValuesAndTypedNulls_refusesAnUnknownName() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:positional_batch")) {
      c.createStatement()
          .execute(
              "CREATE TABLE t (k VARCHAR(10), n NUMERIC(28,9), i INTEGER, b BIGINT, f BOOLEAN)");
      Handle h = Jdbi.create(c).open();
      try (var batch =
          PositionalBatch.Sql.of("INSERT INTO t VALUES (:k, :n, :i, :b, :f)")
              .prepare(h, Dialect.H2)) {
        batch
            .text("k", "one")
            .number("n", new BigDecimal("1.5"))
            .integer("i", 7)
            .bigint("b", 8L)
            .bool("f", true);
        batch.add();
        batch.text("k", null).number("n", null).integer("i", null).bigint("b", null);
        batch.bool("f", null);
        batch.add();
        assertThat(batch.execute()).containsExactly(1, 1);
        assertThatThrownBy(() -> batch.text("missing", "x"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(":missing");
      }
      ResultSet rs = c.createStatement().executeQuery("SELECT * FROM t ORDER BY k NULLS LAST");
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("one");
      assertThat(rs.getBigDecimal(2)).isEqualByComparingTo("1.5");
      assertThat(rs.getInt(3)).isEqualTo(7);
      assertThat(rs.getLong(4)).isEqualTo(8L);
      assertThat(rs.getBoolean(5)).isTrue();
      assertThat(rs.next()).isTrue();
      for (int col = 1; col <= 5; col++) {
        assertThat(rs.getObject(col)).as("column %d", col).isNull();
      }
    }
  }
}
