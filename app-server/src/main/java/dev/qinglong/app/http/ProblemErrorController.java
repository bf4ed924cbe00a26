package dev.qinglong.app.http;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Renders container-level errors (outside MVC handlers) as problem documents too. */
@RestController
public class ProblemErrorController implements ErrorController {

  @RequestMapping("/error")
  ResponseEntity<String> error(HttpServletRequest request) {
    Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    int code = status instanceof Integer i ? i : 503;
    ProblemType type = ProblemType.forStatus(code);
    String detail =
        switch (type) {
          case NOT_FOUND -> "No such route.";
          case UNAUTHENTICATED -> "A valid bearer token is required.";
          case FORBIDDEN -> "The Project Policy does not allow this operation.";
          case PAYLOAD_TOO_LARGE -> "The request body is too large.";
          case INVALID_REQUEST -> "The request could not be processed.";
          default -> "The request could not be completed; retry later.";
        };
    return Problems.entity(type, detail);
  }
}
