package dev.kairos.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class OptionsTest {

  @Test
  void skipNamesKnownProducts() {
    Options o = Options.parse(new String[] {"throughput", "--skip", "quartz-pg,Quartz-Maria"});

    assertThat(o.skip()).containsExactly("quartz-pg", "quartz-maria");
    assertThatThrownBy(() -> Options.parse(new String[] {"throughput", "--skip", "quartz-db2"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("quartz-db2");
  }

  @Test
  void childGetsTheMariaDbServer() {
    Options o =
        Options.parse(
            new String[] {
              "lateness", "--maria-url", "jdbc:mariadb://db:3307/x", "--maria-user", "u"
            });

    var args = o.childArgs(Scenario.LATENESS, "kairos-maria", 10, Path.of("r.tsv"));
    Options child = Options.parse(args.toArray(String[]::new));

    assertThat(child.mariaUrl()).isEqualTo("jdbc:mariadb://db:3307/x");
    assertThat(child.mariaUser()).isEqualTo("u");
    assertThat(child.mariaPassword()).isEmpty();
  }

  @Test
  void mariaDbDatabaseReplacesTheDatabaseOfTheUrl() {
    assertThat(url("jdbc:mariadb://127.0.0.1:3306/test"))
        .isEqualTo("jdbc:mariadb://127.0.0.1:3306/b");
    assertThat(url("jdbc:mariadb://h:1/test?useSsl=false"))
        .isEqualTo("jdbc:mariadb://h:1/b?useSsl=false");
    assertThat(url("jdbc:mariadb://h:1")).isEqualTo("jdbc:mariadb://h:1/b");
  }

  private static String url(String admin) {
    return new Store.MariaDbDatabase(admin, "root", "", "b").url();
  }
}
