package dev.qinglong.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/**
 * The shield's download budget and upload cap classify the decoded, normalised path (the one the
 * role filter decides on), so no spelling MVC still routes to the artifact route escapes them.
 */
class ArtifactRoutesTest {
  private static final String D =
      "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

  /** Spellings of {@code /v1/projects/demo/artifacts/D} that MVC routes to the artifact route. */
  static final List<String> ARTIFACT_SPELLINGS =
      List.of(
          "/v1/projects/demo/artifacts/" + D,
          "/v%31/projects/demo/artifacts/" + D,
          "/v1/projects/demo/%61rtifacts/" + D,
          "/%76%31/%70rojects/demo/%61%72tifacts/" + D,
          "/v%2531/projects/demo/artifacts/" + D,
          "/v1/projects/%64emo/artifacts/" + D.replace("sha256", "sha%32%35%36"),
          "//v1/projects/demo/artifacts/" + D,
          "/v1//projects//demo/artifacts//" + D,
          "/./v1/./projects/demo/./artifacts/" + D,
          "/v1/projects/demo/x/../artifacts/" + D,
          "/v1;jsessionid=1/projects/demo/artifacts;x=y/" + D,
          "/v1/projects/demo;p/artifacts/" + D + ";q",
          "/V1/projects/demo/ARTIFACTS/" + D,
          "/V%31/Projects/demo/%41rtifacts/" + D);

  static final List<String> NOT_ARTIFACT =
      List.of(
          "/v1/projects/demo/artifacts",
          "/v1/projects/demo/artifacts/",
          "/v1/projects/demo/artifacts/" + D + "/more",
          "/v1/projects/demo/artifacts/" + D + "/..",
          "/v1/projects/demo/members",
          "/v2/projects/demo/artifacts/" + D,
          "/x/v1/projects/demo/artifacts/" + D,
          "/v1/projects/demo/artifacts/%zz",
          "/../v1/projects/demo/artifacts/" + D,
          "/actuator/health");

  private static MockHttpServletRequest request(String method, String uri) {
    MockHttpServletRequest request = new MockHttpServletRequest(method, uri);
    request.setRequestURI(uri);
    return request;
  }

  @Test
  void everySpellingOfAnArtifactReadIsADownload() {
    for (String uri : ARTIFACT_SPELLINGS) {
      assertThat(ArtifactRoutes.isDownload(request("GET", uri))).as("GET " + uri).isTrue();
      assertThat(ArtifactRoutes.isDownload(request("HEAD", uri))).as("HEAD " + uri).isTrue();
      assertThat(ArtifactRoutes.isDownload(request("PUT", uri))).as("PUT " + uri).isFalse();
      assertThat(ArtifactRoutes.isDownload(request("DELETE", uri))).as("DELETE " + uri).isFalse();
    }
  }

  @Test
  void everySpellingOfAnArtifactPutIsAnUpload() {
    for (String uri : ARTIFACT_SPELLINGS) {
      assertThat(ArtifactRoutes.isUpload(request("PUT", uri))).as("PUT " + uri).isTrue();
      assertThat(ArtifactRoutes.isUpload(request("GET", uri))).as("GET " + uri).isFalse();
    }
  }

  @Test
  void otherPathsAreNeither() {
    for (String uri : NOT_ARTIFACT) {
      for (String method : List.of("GET", "HEAD", "PUT")) {
        assertThat(ArtifactRoutes.isDownload(request(method, uri)))
            .as(method + " " + uri)
            .isFalse();
        assertThat(ArtifactRoutes.isUpload(request(method, uri))).as(method + " " + uri).isFalse();
      }
    }
  }

  @Test
  void theClassifierDecidesOnTheRoleFiltersPath() {
    for (String uri : ARTIFACT_SPELLINGS) {
      MockHttpServletRequest request = request("GET", uri);
      String path = ApiPaths.normalise(request.getRequestURI(), request.getContextPath());
      assertThat(ApiPaths.of(request)).as(uri).isEqualTo(path);
      assertThat(ArtifactRoutes.isArtifact(path)).as(uri).isTrue();
    }
  }

  @Test
  void aContextPathIsNotPartOfTheRoute() {
    MockHttpServletRequest request = request("GET", "/ctx/v%31/projects/demo/artifacts/" + D);
    request.setContextPath("/ctx");
    assertThat(ArtifactRoutes.isDownload(request)).isTrue();
  }
}
