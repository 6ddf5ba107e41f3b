package dev.kairos.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Synchronizer tokens against cross-site request forgery: a token is an HMAC of the user's name
 * under a secret drawn at random when the dashboard starts. Pages embed it in their action forms,
 * scripts read it from {@code /api/csrf}; another site cannot read either (same-origin policy; the
 * dashboard sends no CORS headers), so it cannot forge an action. Stateless: nothing to store or
 * expire; a restart of the dashboard invalidates old tokens.
 */
final class Csrf {
  private final byte[] secret = new byte[32];

  Csrf() {
    new SecureRandom().nextBytes(secret);
  }

  /** The token for this user. */
  String token(String user) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      byte[] tag = mac.doFinal(("kairos-csrf:" + user).getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  /** True if {@code presented} is this user's token (compared in constant time). */
  boolean valid(String user, String presented) {
    return presented != null
        && MessageDigest.isEqual(
            token(user).getBytes(StandardCharsets.UTF_8),
            presented.getBytes(StandardCharsets.UTF_8));
  }
}
