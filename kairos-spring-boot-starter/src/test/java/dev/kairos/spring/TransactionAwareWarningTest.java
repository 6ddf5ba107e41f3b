package dev.kairos.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kairos.jdbc.JdbcStore;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * A store built by hand on Spring's {@link TransactionAwareDataSourceProxy} without being told when
 * a transaction is open warns once, naming the builder method; told, it does not.
 */
@ExtendWith(OutputCaptureExtension.class)
class TransactionAwareWarningTest {
  @Test
  void transactionAwareDataSourceWithoutJoin_warnsNamingTheBuilderMethod(CapturedOutput out) {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:tx-aware-warning");
    TransactionAwareDataSourceProxy proxy = new TransactionAwareDataSourceProxy(h2);

    JdbcStore.builder().dataSource(proxy).build().close();
    JdbcStore.builder().dataSource(proxy).joinCallerTransactions(() -> false).build().close();

    assertThat(out.getAll().split("joinCallerTransactions", -1)).hasSize(2); // one warning
    assertThat(out.getAll()).contains("TransactionAwareDataSourceProxy");
  }
}
