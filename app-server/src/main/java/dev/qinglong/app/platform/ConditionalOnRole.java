package dev.qinglong.app.platform;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Registers a component (a controller, a configuration, a bean method) only in processes whose
 * {@code qinglong.role} is one of {@link #value()}. A route of a role-conditional controller does
 * not exist in any other role, so no spelling of its path can reach it there.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Conditional(OnRoleCondition.class)
public @interface ConditionalOnRole {
  Role[] value();
}
