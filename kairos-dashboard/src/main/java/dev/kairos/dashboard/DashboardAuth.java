package dev.kairos.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;

/**
 * Decides who makes a request to the dashboard. Set on {@link KairosDashboard.Builder#auth}; every
 * request (pages, JSON API, actions) then needs a user, and actions are logged with that user's
 * name. Without a hook, the dashboard only listens on the loopback interface and its user is {@code
 * "local"}.
 *
 * <pre>{@code
 * KairosDashboard.builder(scheduler)
 *     .auth(DashboardAuth.basic("ops", secret))
 *     .bindAddress("0.0.0.0").port(8080).start();
 * // or map your own: request -> sso.userFor(request.header("Authorization"))
 * }</pre>
 */
@FunctionalInterface
public interface DashboardAuth {

  /**
   * The authenticated user's name, or empty to refuse the request with 401.
   *
   * @param request the request to authenticate
   * @return the user's name, or empty to refuse
   */
  Optional<String> user(DashboardRequest request);

  /**
   * The {@code WWW-Authenticate} header value sent with a 401, if the hook wants a challenge (HTTP
   * basic does); none by default.
   *
   * @return the header value, or empty for no challenge
   */
  default Optional<String> challenge() {
    return Optional.empty();
  }

  /**
   * HTTP basic authentication with one user and password (compared in constant time). Use it behind
   * TLS (a reverse proxy) only: basic sends the password with every request.
   *
   * @param user the user name
   * @param password the user's password
   * @return the basic authentication hook
   */
  static DashboardAuth basic(String user, String password) {
    if (user == null || user.isEmpty() || user.contains(":") || password == null) {
      throw new IllegalArgumentException("basic auth needs a user without ':' and a password");
    }
    byte[] expected =
        ("Basic "
                + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)))
            .getBytes(StandardCharsets.UTF_8);
    return new DashboardAuth() {
      @Override
      public Optional<String> user(DashboardRequest request) {
        return request
            .header("Authorization")
            .filter(h -> MessageDigest.isEqual(h.getBytes(StandardCharsets.UTF_8), expected))
            .map(h -> user);
      }

      @Override
      public Optional<String> challenge() {
        return Optional.of("Basic realm=\"Kairos\", charset=\"UTF-8\"");
      }
    };
  }
}
