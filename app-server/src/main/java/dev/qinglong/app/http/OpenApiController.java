package dev.qinglong.app.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Serves the checked-in OpenAPI 3.1 document ({@code docs/openapi.json}) as it is. */
@RestController
public class OpenApiController {
  public static final String PATH = "/v3/api-docs";
  public static final String RESOURCE = "qinglong-openapi/openapi.json";

  private final byte[] document;

  public OpenApiController() {
    try (InputStream in = new ClassPathResource(RESOURCE).getInputStream()) {
      document = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("the OpenAPI document is missing from the build", e);
    }
  }

  @GetMapping(PATH)
  ResponseEntity<byte[]> document() {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(document);
  }
}
