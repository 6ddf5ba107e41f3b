package dev.kairos.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Escaping for HTML text and attributes, and for values in URLs. Every user text goes through it.
 */
final class Html {
  private Html() {}

  /** Text safe inside an element or a quoted attribute; null becomes the empty string. */
  static String esc(Object value) {
    if (value == null) {
      return "";
    }
    String s = value.toString();
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** A query parameter value, URL-encoded then escaped for an attribute. */
  static String param(String value) {
    return esc(URLEncoder.encode(value, StandardCharsets.UTF_8));
  }
}
