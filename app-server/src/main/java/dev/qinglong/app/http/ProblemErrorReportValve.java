package dev.qinglong.app.http;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpHeaders;

/**
 * The host's error report for what Tomcat refuses before any application code runs (an undecodable
 * or climbing path such as {@code /%2e%2e/x}, {@code %00}, a backslash or bad percent-encoding, a
 * malformed request line or header, {@code CONNECT}): a problem document instead of Tomcat's HTML
 * page. Whatever reached the application was already answered by it (its {@code /error} page), and
 * is left alone.
 */
public final class ProblemErrorReportValve extends ErrorReportValve {
  public ProblemErrorReportValve() {
    setShowReport(false);
    setShowServerInfo(false);
  }

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    AtomicBoolean ioAllowed = new AtomicBoolean(false);
    response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
    if (!ioAllowed.get()) {
      return;
    }
    ProblemType type = typeOf(status);
    try {
      response.setStatus(type.status());
      response.setContentType(Problems.CONTENT_TYPE);
      response.setCharacterEncoding("UTF-8");
      response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
      if (type == ProblemType.UNAVAILABLE && response.getHeader(HttpHeaders.RETRY_AFTER) == null) {
        response.setHeader(HttpHeaders.RETRY_AFTER, Problems.UNAVAILABLE_RETRY_AFTER_SECONDS);
      }
      PrintWriter writer = response.getReporter();
      if (writer != null) {
        writer.write(Problems.json(type, detailOf(type)));
        response.finishResponse();
      }
    } catch (IOException | IllegalStateException e) {
      // The client is gone or the response cannot take a body: nothing more to say.
    }
  }

  static ProblemType typeOf(int status) {
    return switch (status) {
      case 404 -> ProblemType.NOT_FOUND;
      case 405 -> ProblemType.METHOD_NOT_ALLOWED;
      case 413 -> ProblemType.PAYLOAD_TOO_LARGE;
      case 503 -> ProblemType.UNAVAILABLE;
      // 501 is Tomcat's answer to CONNECT, whose target is no path of ours: a bad request.
      default ->
          status < 500 || status == 501 ? ProblemType.INVALID_REQUEST : ProblemType.UNAVAILABLE;
    };
  }

  private static String detailOf(ProblemType type) {
    return switch (type) {
      case INVALID_REQUEST -> "The request is malformed.";
      case NOT_FOUND -> "No such route.";
      case METHOD_NOT_ALLOWED -> "This route does not support the request method.";
      case PAYLOAD_TOO_LARGE -> "The request is larger than this server accepts.";
      default -> "The request could not be completed; retry later.";
    };
  }
}
