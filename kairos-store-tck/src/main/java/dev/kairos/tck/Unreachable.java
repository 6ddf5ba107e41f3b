package dev.kairos.tck;

import org.junit.jupiter.api.Assumptions;

/**
 * What the database fixtures ({@link PostgresTestDatabase}, {@link MariaDbTestDatabase}) do when
 * their server cannot be reached: the tests skip, saying why, except in CI (the environment
 * variable {@code CI} set, and not to {@code false}), where creating the fixture fails instead.
 */
final class Unreachable {
  private Unreachable() {}

  /** True in CI: the environment variable {@code CI} is set, and not blank or {@code false}. */
  static boolean inCi() {
    String ci = System.getenv("CI");
    return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
  }

  /** Returns {@code why}, the reason to skip; in CI throws an AssertionError saying it instead. */
  static String skipOrFail(String why, Exception cause) {
    if (inCi()) {
      throw new AssertionError(
          why + " (CI=" + System.getenv("CI") + ", so this fails instead of skipping)", cause);
    }
    return why;
  }

  /** Skips the calling test if {@code unreachable} (a reason) is not null. */
  static void assume(String unreachable) {
    Assumptions.assumeTrue(unreachable == null, () -> unreachable + "; skipping this test");
  }
}
