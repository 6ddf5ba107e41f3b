package dev.kairos.dashboard;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an authentication hook sees of a request to the dashboard.
 *
 * @param method the HTTP method
 * @param path the request path, without the query
 * @param headers the request headers; names in lower case
 * @param remote the client's address
 */
public record DashboardRequest(
    String method, String path, Map<String, List<String>> headers, InetSocketAddress remote) {

  /**
   * The first value of a header (the name in any case), if present.
   *
   * @param name the header name
   * @return the header's first value, or empty if absent
   */
  public Optional<String> header(String name) {
    List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
    return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
  }
}
