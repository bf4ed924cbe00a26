package dev.qinglong.app.http.security;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSetUnavailableException;
import com.nimbusds.jose.jwk.source.URLBasedJWKSetSource;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jose.util.ResourceRetriever;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * The JWK set named by the issuer's metadata ({@code jwks_uri} of OpenID Connect discovery, else of
 * RFC 8414 authorization server metadata), looked up on the first fetch: {@code
 * qinglong.auth.jwt.jwk-set-uri} unset. The metadata must name the configured issuer exactly. The
 * lookup is part of the fetch, so the same cooldown and timeout bound it.
 */
final class DiscoveredJwkSetSource implements JWKSetSource<SecurityContext> {
  private final String issuer;
  private final ResourceRetriever retriever;
  private volatile URLBasedJWKSetSource<SecurityContext> keys;

  DiscoveredJwkSetSource(String issuer, ResourceRetriever retriever) {
    this.issuer = issuer;
    this.retriever = retriever;
  }

  @Override
  public JWKSet getJWKSet(
      JWKSetCacheRefreshEvaluator refreshEvaluator, long currentTime, SecurityContext context)
      throws KeySourceException {
    URLBasedJWKSetSource<SecurityContext> k = keys;
    if (k == null) {
      k = new URLBasedJWKSetSource<>(discover(), retriever);
      keys = k;
    }
    return k.getJWKSet(refreshEvaluator, currentTime, context);
  }

  private java.net.URL discover() throws KeySourceException {
    String base = issuer.endsWith("/") ? issuer.substring(0, issuer.length() - 1) : issuer;
    Exception last = null;
    for (String suffix :
        List.of("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server")) {
      try {
        Map<String, Object> metadata =
            JSONObjectUtils.parse(
                retriever.retrieveResource(URI.create(base + suffix).toURL()).getContent());
        if (!issuer.equals(metadata.get("issuer"))) {
          throw new JWKSetUnavailableException("the issuer metadata names another issuer");
        }
        if (!(metadata.get("jwks_uri") instanceof String jwks)) {
          throw new JWKSetUnavailableException("the issuer metadata has no jwks_uri");
        }
        return URI.create(jwks).toURL();
      } catch (KeySourceException e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
    }
    throw new JWKSetUnavailableException("issuer metadata not found", last);
  }

  @Override
  public void close() throws IOException {
    // nothing held
  }
}
