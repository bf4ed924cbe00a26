package dev.qinglong.app.http;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.StreamReadFeature;

/**
 * Strict JSON for request bodies: a member given twice ({@code
 * {"permissions":["project.admin"],"permissions":[]}}) is refused by the parser (400 {@code
 * invalid_request}) instead of the last one silently winning, so no two readers of one body can
 * disagree on what it says.
 */
@Configuration(proxyBeanMethods = false)
public class JsonConfiguration {
  @Bean
  JsonMapperBuilderCustomizer strictDuplicateDetection() {
    return builder -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
  }
}
