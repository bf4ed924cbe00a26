package dev.qinglong.app.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.MDC;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives every request an id of its own, first of all filters: in the MDC as {@value #MDC_KEY} (so
 * every log line written while serving it carries it, in text and in JSON logs), in the response
 * header {@value #HEADER}, and as the {@code instance} of any problem document the request gets
 * ({@code urn:uuid:…}), so a user's error report leads to the server's log lines. The id is always
 * made here, never taken from the client: a client-chosen id could forge or collide with another
 * request's log lines.
 *
 * <p>The id is a random (version 4) UUID from {@link ThreadLocalRandom}, not {@link
 * UUID#randomUUID()}: it names a request, it is no secret (the client gets it in the header), so it
 * needs no {@code SecureRandom}, whose shared, synchronised generator every request would otherwise
 * pass through.
 */
public final class RequestIdFilter extends OncePerRequestFilter {
  public static final String MDC_KEY = "requestId";
  public static final String HEADER = "X-Request-Id";

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String id = newId();
    MDC.put(MDC_KEY, id);
    response.setHeader(HEADER, id);
    try {
      chain.doFilter(request, response);
    } finally {
      MDC.remove(MDC_KEY);
    }
  }

  /** A random version 4, variant 2 (RFC 9562) UUID in its canonical text form. */
  static String newId() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
    long lsb = (random.nextLong() & ~(0xC000L << 48)) | (0x8000L << 48); // variant 10xx
    return new UUID(msb, lsb).toString();
  }

  /** The {@code instance} of a problem written while serving the current request, or null. */
  static String currentInstance() {
    String id = MDC.get(MDC_KEY);
    return id == null ? null : "urn:uuid:" + id;
  }
}
