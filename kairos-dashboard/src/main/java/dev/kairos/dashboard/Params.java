package dev.kairos.dashboard;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Strictly parsed query or form parameters: each name at most once and known to the route, values
 * well-formed UTF-8 percent-encoding. Anything else is refused with 400 and one line saying why.
 */
final class Params {
  private final Map<String, String> values;

  private Params(Map<String, String> values) {
    this.values = values;
  }

  /** Parses {@code raw} ({@code a=1&b=x%20y}, or null) allowing only {@code allowed} names. */
  static Params parse(String raw, Set<String> allowed) {
    Map<String, String> values = new LinkedHashMap<>();
    if (raw != null && !raw.isEmpty()) {
      for (String pair : raw.split("&", -1)) {
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq));
        String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
        if (!allowed.contains(name)) {
          throw new Problem(
              400,
              "unknown parameter '"
                  + name
                  + "'"
                  + (allowed.isEmpty()
                      ? " (this address takes none)"
                      : " (expected "
                          + String.join(", ", allowed.stream().sorted().toList())
                          + ")"));
        }
        if (values.put(name, value) != null) {
          throw new Problem(400, "parameter '" + name + "' given twice");
        }
      }
    }
    return new Params(values);
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new Problem(400, "malformed percent-encoding in the query or form");
    }
  }

  /** The value, if given and not empty. */
  Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name)).filter(v -> !v.isEmpty());
  }

  /** The value, or 400 naming the parameter. */
  String required(String name) {
    return get(name)
        .orElseThrow(
            () ->
                new Problem(
                    400,
                    (values.containsKey(name) ? "empty parameter '" : "missing parameter '")
                        + name
                        + "'"));
  }

  /** An integer in [min, max], {@code dflt} if absent; else 400. */
  int integer(String name, int dflt, int min, int max) {
    Optional<String> v = get(name);
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.get());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new Problem(
        400, "parameter '" + name + "' must be an integer from " + min + " to " + max);
  }
}
