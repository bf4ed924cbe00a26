package dev.qinglong.app.console;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;

/**
 * {@code /console/} is the page; {@code /console} redirects there so relative links resolve, and so
 * does {@code /}, the address an operator opens first.
 */
@Controller
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ConsoleController {
  private final Resource index = new ClassPathResource("console/index.html");

  @GetMapping("/console/")
  ResponseEntity<Resource> index() {
    return ResponseEntity.ok()
        .contentType(MediaType.TEXT_HTML)
        .cacheControl(CacheControl.noCache())
        .body(index);
  }

  @GetMapping({"/", "/console"})
  ResponseEntity<Void> redirect() {
    return ResponseEntity.status(302).header("Location", "/console/").build();
  }
}
