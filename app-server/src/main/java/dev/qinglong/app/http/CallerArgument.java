package dev.qinglong.app.http;

import dev.qinglong.core.kernel.Principal;
import java.util.List;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * A handler's {@link Principal} parameter is the authenticated caller: the security chain has
 * already authenticated every {@code /v1} request and checked the user id's grammar. The OpenAPI
 * document leaves the parameter out (it is not part of the request). Written here rather than with
 * Spring Security's {@code @AuthenticationPrincipal}, which hands over the authentication's own
 * principal object (a {@code Jwt} or the dev token's user), not the core's {@link Principal}.
 */
@Configuration(proxyBeanMethods = false)
public class CallerArgument implements WebMvcConfigurer, HandlerMethodArgumentResolver {
  static {
    SpringDocUtils.getConfig().addRequestWrapperToIgnore(Principal.class);
  }

  @Override
  public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
    resolvers.add(this);
  }

  @Override
  public boolean supportsParameter(MethodParameter parameter) {
    return parameter.getParameterType() == Principal.class;
  }

  @Override
  public Principal resolveArgument(
      MethodParameter parameter,
      ModelAndViewContainer container,
      NativeWebRequest request,
      WebDataBinderFactory binders) {
    return new Principal(SecurityContextHolder.getContext().getAuthentication().getName());
  }
}
