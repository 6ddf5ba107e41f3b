package dev.kairos.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writing responses, every one with the same security headers (a Content-Security-Policy that
 * allows no script, no sniffing, no framing, no caching), and reading bounded request bodies.
 */
final class Responses {
  /** The largest request body read (a form); more is refused with 413. */
  static final int MAX_FORM = 16 * 1024;

  private static final String CSP =
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self';"
          + " frame-ancestors 'none'; base-uri 'none'";

  private Responses() {}

  static void json(HttpExchange x, int status, JsonNode body) throws IOException {
    String text;
    try {
      text = JobJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
    send(x, status, "application/json; charset=utf-8", text);
  }

  static void send(HttpExchange x, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    var h = x.getResponseHeaders();
    h.set("Content-Type", type);
    h.set("Content-Security-Policy", CSP);
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    // same-origin, not no-referrer: with no-referrer, browsers send "Origin: null" on form posts.
    h.set("Referrer-Policy", "same-origin");
    h.set("Cache-Control", "no-store");
    boolean head = x.getRequestMethod().equals("HEAD");
    x.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      x.getResponseBody().write(bytes);
    }
  }

  static String readBody(HttpExchange x) throws IOException {
    try (InputStream in = x.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_FORM + 1);
      if (body.length > MAX_FORM) {
        throw new Problem(413, "request body larger than " + MAX_FORM + " bytes");
      }
      return new String(body, StandardCharsets.UTF_8);
    }
  }
}
