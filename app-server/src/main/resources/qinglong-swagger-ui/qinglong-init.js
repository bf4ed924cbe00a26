// Swagger UI over the OpenAPI document the app generates and serves at /v3/api-docs (no CDN, no
// remote spec URL: the query-string "url" parameter is ignored so the page cannot be pointed at
// another document). "Authorize" takes a bearer token; it stays in this page's memory only.
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/v3/api-docs",
    dom_id: "#swagger-ui",
    deepLinking: false,
    queryConfigEnabled: false,
    validatorUrl: null,
    persistAuthorization: false,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
};
