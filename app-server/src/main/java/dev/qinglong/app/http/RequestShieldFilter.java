package dev.qinglong.app.http;

import dev.qinglong.app.http.ShieldRefusals.Reason;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The process-local pre-authentication shield (docs/design.md#identity-and-authorization): runs
 * before security and before any database work. It bounds the request body (413 from
 * Content-Length, or as soon as a streamed body passes the cap) and the requests served at once, in
 * total (503) and per client address (429). It complements, never replaces, the durable quota.
 *
 * <p>It reads no body itself, and nothing else may before authentication (no form-content filter,
 * no multipart, no body parameters: {@code application.properties}); an unread body is discarded by
 * the container under {@code server.tomcat.max-swallow-size}. A route with its own, larger cap
 * (artifact uploads) gets it only for an {@code application/octet-stream} body; any other body on
 * it keeps the JSON cap, and the route refuses it unread. A request with more than one {@code
 * Authorization} header is refused (400): which one counts would depend on the reader.
 */
public final class RequestShieldFilter extends OncePerRequestFilter {
  public static final String TOO_LARGE_DETAIL =
      "The request body is larger than this server accepts.";
  private static final String TOO_LARGE = RequestShieldFilter.class.getName() + ".tooLarge";

  private final long maxBodyBytes;
  private final int totalMax;
  private final Semaphore total;
  private final InFlightCounts perClient; // requests in flight per client address

  // Routes that stream a large body and enforce their own cap (artifact uploads), and that cap.
  private final Predicate<HttpServletRequest> ownBodyCap;
  private final long ownMaxBodyBytes;
  // Requests counted against a budget of their own instead of the total (downloads).
  private final Predicate<HttpServletRequest> ownBudget;
  private final int ownBudgetMax;
  private final Semaphore ownBudgetPermits;
  private final ClientAddresses clients;
  private final ShieldRefusals refusals;

  /**
   * Requests whose body is bounded by {@code maxBytes} (checked here against Content-Length) and by
   * the route itself while streaming, instead of the JSON cap. A feature that streams large bodies
   * contributes one as a bean (artifact uploads); the shield knows no feature.
   */
  public record OwnBodyCap(Predicate<HttpServletRequest> applies, long maxBytes) {
    /** No route has its own cap. */
    public static final OwnBodyCap NONE = new OwnBodyCap(request -> false, 0);
  }

  /**
   * Requests that hold their slot long by nature (downloads, paced and as slow as their reader) and
   * therefore count against a budget of {@code maxConcurrent} of their own instead of the total, so
   * they can never take the API's slots. The per-address bound still applies. The predicate must
   * decide on {@link ApiPaths#of}, the path MVC routes, not on the raw URI ({@link
   * ArtifactRoutes#isDownload}), or another spelling of the same route escapes the budget.
   */
  public record OwnBudget(Predicate<HttpServletRequest> applies, int maxConcurrent) {
    /** No route has its own budget. */
    public static final OwnBudget NONE = new OwnBudget(request -> false, 1);
  }

  public RequestShieldFilter(
      ShieldProperties shield,
      OwnBodyCap ownBodyCap,
      OwnBudget ownBudget,
      ShieldRefusals refusals) {
    this.refusals = refusals;
    this.ownBudget = ownBudget.applies();
    this.ownBudgetMax = ownBudget.maxConcurrent();
    this.ownBudgetPermits = new Semaphore(ownBudgetMax);
    this.clients = new ClientAddresses(shield.trustedProxies());
    this.ownBodyCap = ownBodyCap.applies();
    this.ownMaxBodyBytes = ownBodyCap.maxBytes();
    this.maxBodyBytes = shield.maxBodyBytes();
    this.perClient = new InFlightCounts(shield.maxConcurrentRequestsPerClient());
    this.totalMax = shield.maxConcurrentRequests();
    this.total = new Semaphore(totalMax);
  }

  /**
   * How many requests hold a slot right now, of the total or of the routes' own budget: admitted
   * past both bounds and not yet finished. For diagnostics and tests, which wait on it instead of
   * guessing how long the server takes to admit a request.
   */
  public int inFlight() {
    return (totalMax - total.availablePermits())
        + (ownBudgetMax - ownBudgetPermits.availablePermits());
  }

  /** True if the request's body was cut off by this filter (its reader then fails). */
  public static boolean bodyTooLarge(HttpServletRequest request) {
    return Boolean.TRUE.equals(request.getAttribute(TOO_LARGE));
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    // Probes must answer even when the API is saturated. Only a path that is actuator's both as
    // written and once normalised: /actuator/../v1/… is the API's and stays shielded.
    String path = ApiPaths.of(request);
    return path != null
        && path.startsWith("/actuator/")
        && request.getRequestURI().startsWith("/actuator/");
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (moreThanOne(request, HttpHeaders.AUTHORIZATION)) {
      refusals.refuse(response, Reason.DUPLICATE_AUTHORIZATION);
      return;
    }
    long declared = request.getContentLengthLong();
    boolean ownCap = ownBodyCap.test(request) && octetStream(request.getContentType());
    if (declared > (ownCap ? ownMaxBodyBytes : maxBodyBytes)) {
      refusals.refuse(response, Reason.BODY_TOO_LARGE);
      return;
    }
    String client = clients.of(request);
    if (!perClient.tryAcquire(client)) {
      refusals.refuse(response, Reason.CLIENT_CONCURRENCY);
      return;
    }
    Semaphore budget = ownBudget.test(request) ? ownBudgetPermits : total;
    try {
      if (!budget.tryAcquire()) {
        refusals.refuse(response, Reason.SERVER_BUSY);
        return;
      }
      try {
        chain.doFilter(ownCap ? request : new BoundedRequest(request, maxBodyBytes), response);
      } finally {
        budget.release();
      }
    } finally {
      perClient.release(client);
    }
  }

  private static boolean moreThanOne(HttpServletRequest request, String header) {
    Enumeration<String> values = request.getHeaders(header);
    if (values == null || !values.hasMoreElements()) {
      return false;
    }
    values.nextElement();
    return values.hasMoreElements();
  }

  /**
   * Whether a body is raw bytes: {@code application/octet-stream}, or no Content-Type at all, which
   * Spring MVC's {@code consumes} treats the same way.
   */
  static boolean octetStream(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return true;
    }
    try {
      return MediaType.APPLICATION_OCTET_STREAM.equalsTypeAndSubtype(
          MediaType.parseMediaType(contentType));
    } catch (InvalidMediaTypeException e) {
      return false;
    }
  }

  /** Counts the bytes read from the body and fails once they pass the cap. */
  private static final class BoundedRequest extends HttpServletRequestWrapper {
    private final long max;
    private ServletInputStream stream;
    private BufferedReader reader;

    BoundedRequest(HttpServletRequest request, long max) {
      super(request);
      this.max = max;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new BoundedStream((HttpServletRequest) getRequest(), max);
      }
      return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      if (reader == null) {
        String encoding = getCharacterEncoding();
        reader =
            new BufferedReader(
                new InputStreamReader(
                    getInputStream(),
                    encoding == null
                        ? StandardCharsets.UTF_8
                        : java.nio.charset.Charset.forName(encoding)));
      }
      return reader;
    }
  }

  private static final class BoundedStream extends ServletInputStream {
    private final HttpServletRequest request;
    private final ServletInputStream in;
    private final long max;
    private long count;

    BoundedStream(HttpServletRequest request, long max) throws IOException {
      this.request = request;
      this.in = request.getInputStream();
      this.max = max;
    }

    private void add(long n) throws IOException {
      if (n > 0) {
        count += n;
        if (count > max) {
          request.setAttribute(TOO_LARGE, Boolean.TRUE);
          throw new IOException("request body exceeds " + max + " bytes");
        }
      }
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        add(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      add(n);
      return n;
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }
  }
}
