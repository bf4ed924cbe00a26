package dev.qinglong.app.platform;

import java.util.Arrays;
import java.util.Map;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition of {@link ConditionalOnRole}. */
final class OnRoleCondition implements Condition {

  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    Map<String, Object> attributes =
        metadata.getAnnotationAttributes(ConditionalOnRole.class.getName());
    if (attributes == null) {
      return true;
    }
    Role role = Roles.of(context.getEnvironment());
    return Arrays.asList((Role[]) attributes.get("value")).contains(role);
  }
}
