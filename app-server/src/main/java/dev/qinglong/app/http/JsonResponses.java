package dev.qinglong.app.http;

import dev.qinglong.core.kernel.Principal;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;

/** What every JSON route shares: who calls, and how a JSON answer is sent (never cached). */
public final class JsonResponses {
  private JsonResponses() {}

  /** The authenticated caller; the security chain has already checked the id's grammar. */
  public static Principal caller(Authentication authentication) {
    return new Principal(authentication.getName());
  }

  /** A JSON answer with {@code status}; responses carry per-caller data, so no caching. */
  public static ResponseEntity<String> json(int status, String body) {
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .header("Cache-Control", "no-store")
        .body(body);
  }

  /**
   * A 201 JSON answer with {@code Location}: the path of what was created (DESIGN §3: every 201
   * carries it). Identifiers are of the contract's grammar, so the path needs no escaping.
   */
  public static ResponseEntity<String> created(String location, String body) {
    return ResponseEntity.status(201)
        .contentType(MediaType.APPLICATION_JSON)
        .header("Cache-Control", "no-store")
        .header("Location", location)
        .body(body);
  }
}
