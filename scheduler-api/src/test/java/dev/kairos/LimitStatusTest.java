package dev.kairos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The limit status record: its checks name the limit, the field and the value. */
class LimitStatusTest {

  @Test
  void handlers_areCopiedSortedAndUnmodifiable() {
    Set<String> given = new HashSet<>(List.of("push", "pull"));
    LimitStatus s = new LimitStatus("crm", 1, given, 1, 3);
    given.add("late");

    assertThat(s.handlers()).containsExactly("pull", "push");
    assertThatThrownBy(() -> s.handlers().add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(s).isEqualTo(new LimitStatus("crm", 1, Set.of("push", "pull"), 1, 3));
  }

  @Test
  void zeroCounts_andRunningAtThePermits_areAccepted() {
    assertThat(new LimitStatus("h", 2, Set.of("h"), 0, 0).running()).isZero();
    assertThat(new LimitStatus("h", 2, Set.of("h"), 2, 7).waiting()).isEqualTo(7);
  }

  @Test
  void badName_isRefused() {
    assertThatThrownBy(() -> new LimitStatus(" ", 1, Set.of("h"), 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status: name must not be blank: ' '");
    assertThatThrownBy(() -> new LimitStatus(null, 1, Set.of("h"), 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'null'");
  }

  @Test
  void permitsBelowOne_isRefused() {
    assertThatThrownBy(() -> new LimitStatus("export", 0, Set.of("export"), 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status 'export': permits must be at least 1, not 0");
  }

  @Test
  void noOrBlankHandler_isRefused() {
    assertThatThrownBy(() -> new LimitStatus("g", 1, Set.of(), 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status 'g': handlers must not be empty");
    assertThatThrownBy(() -> new LimitStatus("g", 1, null, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status 'g': handlers must not be empty");
    assertThatThrownBy(() -> new LimitStatus("g", 1, Set.of("a", ""), 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status 'g': handlers holds a blank name: ''");
  }

  @Test
  void negativeCounts_areRefused() {
    assertThatThrownBy(() -> new LimitStatus("h", 1, Set.of("h"), -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status 'h': running must not be negative, not -1");
    assertThatThrownBy(() -> new LimitStatus("h", 1, Set.of("h"), 0, -2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit status 'h': waiting must not be negative, not -2");
  }

  /** A scheduler that does not override {@code limits()} reports none. */
  @Test
  void schedulerDefault_isEmpty() {
    Scheduler bare =
        (Scheduler)
            java.lang.reflect.Proxy.newProxyInstance(
                Scheduler.class.getClassLoader(),
                new Class<?>[] {Scheduler.class},
                (proxy, method, args) ->
                    java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args));
    assertThat(bare.limits()).isEmpty();
  }
}
