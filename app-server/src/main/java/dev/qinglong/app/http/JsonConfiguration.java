package dev.qinglong.app.http;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

/**
 * Strict JSON for request bodies, in the two places no {@code spring.jackson.*} property reaches
 * (the rest is in {@code application.properties}):
 *
 * <ul>
 *   <li>a member given twice ({@code {"permissions":["project.admin"],"permissions":[]}}) is
 *       refused by the parser instead of the last one silently winning, so no two readers of one
 *       body can disagree on what it says;
 *   <li>a number or a boolean is never read as a string ({@code {"actionRef":5}} is 400, not the
 *       ref {@code "5"}): a string member takes a JSON string only.
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class JsonConfiguration {
  @Bean
  JsonMapperBuilderCustomizer strictRequestBodies() {
    return builder ->
        builder
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .withCoercionConfig(
                LogicalType.Textual,
                text ->
                    text.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
  }
}
