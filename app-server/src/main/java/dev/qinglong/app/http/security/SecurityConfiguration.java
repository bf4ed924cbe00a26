package dev.qinglong.app.http.security;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.Role;
import dev.qinglong.app.platform.Roles;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.policy.ProjectPolicyStore;
import jakarta.servlet.http.HttpServletRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationManagerResolver;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.header.HeaderWriterFilter;

/**
 * Authentication of every {@code /v1/**} request with a bearer token: dev tokens (local default) or
 * JWT (OAuth2 resource server). Authorization itself is the Project Policy, applied by the core.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {
  private static final Logger log = LoggerFactory.getLogger(SecurityConfiguration.class);
  public static final String DEMO_PROJECT = "demo";

  @Bean
  ProblemAuthenticationHandlers problemAuthenticationHandlers() {
    return new ProblemAuthenticationHandlers();
  }

  /**
   * No Spring Security observations: they wrap every filter of the security chain (and the
   * authentication and authorization managers) in an observation of its own, about 15 nested
   * observations per request, which cost more request CPU than the quota decision (profile in
   * docs/benchmarks.md, "HTTP path profile"). The metrics the operations guide promises are not
   * among them: {@code http.server.requests} (Spring's HTTP observation filter, which stays) and
   * the project's own meters.
   */
  @Bean
  SecurityObservationSettings securityObservationSettings() {
    return SecurityObservationSettings.noObservations();
  }

  /** Project Policy: every role but the worker authorises requests. */
  @Bean
  @ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
  ProjectPolicy projectPolicy(OpenedStore.Catalog catalog, AuthProperties auth) {
    return new ProjectPolicy(catalog.policy(), Set.copyOf(auth.effectiveGlobalAdmins()));
  }

  /**
   * The one authentication manager of the mode; closed with the context (the JWT mode's key source
   * has worker threads).
   */
  record BearerManagers(AuthenticationManager manager, AutoCloseable resources)
      implements AuthenticationManagerResolver<HttpServletRequest>, AutoCloseable {
    @Override
    public AuthenticationManager resolve(HttpServletRequest request) {
      return manager;
    }

    @Override
    public void close() throws Exception {
      resources.close();
    }
  }

  @Bean
  BearerManagers bearerAuthenticationManagerResolver(
      AuthProperties auth,
      PlatformProperties platform,
      ObjectProvider<OpenedStore.Catalog> catalog,
      Environment environment) {
    AuthenticationManager manager;
    AutoCloseable resources = () -> {};
    if (auth.mode() == AuthProperties.Mode.JWT) {
      // Spring Boot's own spring.security.oauth2.resourceserver.jwt.* for what it names:
      // jws-algorithms and principal-claim-name.
      OAuth2ResourceServerProperties.Jwt boot =
          Binder.get(environment)
              .bind("spring.security.oauth2.resourceserver", OAuth2ResourceServerProperties.class)
              .orElseGet(OAuth2ResourceServerProperties::new)
              .getJwt();
      refuseIgnoredBootJwtSettings(boot);
      String principalClaim =
          boot.getPrincipalClaimName() == null || boot.getPrincipalClaimName().isBlank()
              ? JwtClaimNames.SUB
              : boot.getPrincipalClaimName().trim();
      JwtDecoders.Guarded decoder =
          JwtDecoders.build(auth.jwt(), boot.getJwsAlgorithms(), principalClaim);
      resources = decoder;
      JwtAuthenticationProvider provider = new JwtAuthenticationProvider(decoder);
      JwtAuthenticationConverter converter = new JwtAuthenticationConverter();
      converter.setPrincipalClaimName(principalClaim);
      provider.setJwtAuthenticationConverter(converter);
      manager = new ProviderManager(provider);
      log.info(
          "auth.mode=jwt issuer={} algorithms={} principalClaim={} keySetRefreshCooldown={}"
              + " keySetFetchTimeout={} maxTokenLifetime={} globalAdmins={}",
          auth.jwt().issuerUri(),
          boot.getJwsAlgorithms(),
          principalClaim,
          auth.jwt().keySetRefreshCooldown(),
          auth.jwt().keySetFetchTimeout(),
          auth.jwt().maxTokenLifetime(),
          auth.effectiveGlobalAdmins());
    } else {
      requireLoopback(auth, environment);
      DevTokens tokens = DevTokens.loadOrCreate(platform.dataDir());
      log.info(
          "auth.mode=dev-tokens file={} created={} added={} users={}",
          tokens.file(),
          tokens.created(),
          tokens.added(),
          tokens.users());
      if (Roles.managesApi(platform.role())) {
        seedDemoProject(catalog.getObject().policy()); // readers and workers write nothing
      }
      manager = devTokenManager(tokens);
    }
    return new BearerManagers(manager, resources);
  }

  @Bean
  SecurityFilterChain securityFilterChain(
      HttpSecurity http,
      AuthenticationManagerResolver<HttpServletRequest> resolver,
      ProblemAuthenticationHandlers handlers)
      throws Exception {
    http.csrf(c -> c.disable())
        .cors(c -> c.disable())
        .httpBasic(b -> b.disable())
        .formLogin(f -> f.disable())
        .logout(l -> l.disable())
        .requestCache(r -> r.disable())
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .authorizeHttpRequests(
            a -> a.requestMatchers("/v1/**").authenticated().anyRequest().permitAll())
        .oauth2ResourceServer(
            o ->
                o.authenticationManagerResolver(resolver)
                    .authenticationEntryPoint(handlers)
                    .accessDeniedHandler(handlers))
        .exceptionHandling(e -> e.authenticationEntryPoint(handlers).accessDeniedHandler(handlers))
        .addFilterAfter(new BearerOnlyFilter(handlers), HeaderWriterFilter.class);
    return http.build();
  }

  /**
   * Issuer, keys and audience are {@code qinglong.auth.jwt.*}; Spring Boot's own names for them
   * would be silently ignored here (and would make Boot build a second decoder), so they refuse the
   * start instead.
   */
  static void refuseIgnoredBootJwtSettings(OAuth2ResourceServerProperties.Jwt boot) {
    boolean set =
        boot.getIssuerUri() != null
            || boot.getJwkSetUri() != null
            || boot.getPublicKeyLocation() != null
            || (boot.getAudiences() != null && !boot.getAudiences().isEmpty());
    if (set) {
      throw new IllegalStateException(
          "spring.security.oauth2.resourceserver.jwt.issuer-uri, .jwk-set-uri,"
              + " .public-key-location and .audiences are not used: set"
              + " qinglong.auth.jwt.issuer-uri, .jwk-set-uri and .audience");
    }
  }

  static AuthenticationManager devTokenManager(DevTokens tokens) {
    return authentication -> {
      if (!(authentication instanceof BearerTokenAuthenticationToken bearer)) {
        throw new InvalidBearerTokenException("invalid token");
      }
      String user =
          tokens
              .userFor(bearer.getToken())
              .orElseThrow(() -> new InvalidBearerTokenException("invalid token"));
      return UsernamePasswordAuthenticationToken.authenticated(user, null, List.of());
    };
  }

  /**
   * Seeds project demo: alice manages, bob decides, carol is a member without permissions, runtime
   * (a runtime service's account) invokes models and reads their usage. An empty demo gets every
   * member; a demo seeded by an earlier version (which had no runtime) gets the members seeded
   * since then that it lacks, and the members it has stay as they are.
   */
  static void seedDemoProject(ProjectPolicyStore store) {
    List<ProjectMember> seed =
        List.of(
            new ProjectMember(
                DEMO_PROJECT,
                "alice",
                EnumSet.of(Permission.PACKAGE_MANAGE, Permission.PACKAGE_READ)),
            new ProjectMember(
                DEMO_PROJECT,
                "bob",
                EnumSet.of(Permission.APPROVAL_DECIDE, Permission.PACKAGE_READ)),
            new ProjectMember(DEMO_PROJECT, "carol", EnumSet.noneOf(Permission.class)),
            new ProjectMember(
                DEMO_PROJECT,
                "runtime",
                EnumSet.of(Permission.MODEL_INVOKE, Permission.MODEL_USAGE_READ)));
    Set<String> present =
        store.members(DEMO_PROJECT).stream().map(ProjectMember::userId).collect(Collectors.toSet());
    // The first seed's members go only into an empty demo, so one an operator removed stays
    // removed; a member seeded since then is added to a demo that lacks it (so also again after
    // its removal: give it no permissions instead to keep it out).
    Set<String> sinceFirstSeed = Set.of("runtime");
    List<String> added = new ArrayList<>();
    for (ProjectMember member : seed) {
      boolean add =
          present.isEmpty()
              || (sinceFirstSeed.contains(member.userId()) && !present.contains(member.userId()));
      if (add) {
        store.replaceMember(member);
        added.add(member.userId());
      }
    }
    if (!added.isEmpty()) {
      log.info("auth.dev-tokens seeded project={} members={}", DEMO_PROJECT, added);
    }
  }

  static void requireLoopback(AuthProperties auth, Environment environment) {
    if (auth.devTokensOnNetwork()) {
      return;
    }
    String address = environment.getProperty("server.address");
    boolean loopback;
    if (address == null || address.isBlank()) {
      loopback = false;
    } else {
      try {
        loopback = InetAddress.getByName(address.trim()).isLoopbackAddress();
      } catch (UnknownHostException e) {
        loopback = false;
      }
    }
    if (!loopback) {
      throw new dev.qinglong.app.platform.StartRefusedException(
          "qinglong.auth.mode=dev-tokens refuses to listen on server.address="
              + (address == null || address.isBlank() ? "<all interfaces>" : address),
          "Bind to 127.0.0.1 (server.address), use qinglong.auth.mode=jwt, or set"
              + " qinglong.auth.dev-tokens-on-network=true.");
    }
  }
}
