package dev.qinglong.app.governance;

import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaOperation;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.management-quota.*} (docs/design.md#management-quota). Unset window and limits
 * take the core's defaults ({@link ManagementQuotaPolicy#DEFAULT_WINDOW}, {@link
 * QuotaOperation#defaultLimit()}).
 *
 * @param enabled Whether propose/decide/inspect, model-usage reads and artifact uploads consume the
 *     durable quota.
 * @param window Fixed window length; at most 5m.
 * @param limits Requests per window of each operation.
 */
@ConfigurationProperties("qinglong.management-quota")
@Validated
public record ManagementQuotaProperties(
    @DefaultValue("true") boolean enabled,
    @NotNull Duration window,
    @Valid @DefaultValue Limits limits) {

  public ManagementQuotaProperties {
    window = window == null ? ManagementQuotaPolicy.DEFAULT_WINDOW : window;
  }

  @AssertTrue(
      message =
          "qinglong.management-quota.window must be between 1s and 5m (hard bound), in"
              + " whole milliseconds")
  public boolean isWindowWithinBounds() {
    return window != null
        && window.compareTo(Duration.ofSeconds(1)) >= 0
        && window.compareTo(ManagementQuotaPolicy.MAX_WINDOW) <= 0
        && window.getNano() % 1_000_000 == 0;
  }

  /** The core policy these properties describe. */
  public ManagementQuotaPolicy toPolicy() {
    Map<QuotaOperation, Integer> map = new EnumMap<>(QuotaOperation.class);
    map.put(QuotaOperation.PROPOSE, limits.propose());
    map.put(QuotaOperation.DECIDE, limits.decide());
    map.put(QuotaOperation.INSPECT, limits.inspect());
    map.put(QuotaOperation.MODEL_USAGE_READ, limits.modelUsageRead());
    map.put(QuotaOperation.ARTIFACT_UPLOAD, limits.artifactUpload());
    return new ManagementQuotaPolicy(enabled, window, map);
  }

  /**
   * {@code qinglong.management-quota.limits.*}: requests per window, each 1..1000.
   *
   * @param propose Proposals per window.
   * @param decide Decisions per window.
   * @param inspect Inspections (reads of governance state) per window.
   * @param modelUsageRead Reads of model usage (window and ledger) per window, when
   *     qinglong.ai.enabled.
   * @param artifactUpload Artifact uploads per window (a re-upload of the same digest in the window
   *     is not counted again).
   */
  public record Limits(
      @Min(1) @Max(ManagementQuotaPolicy.MAX_LIMIT) Integer propose,
      @Min(1) @Max(ManagementQuotaPolicy.MAX_LIMIT) Integer decide,
      @Min(1) @Max(ManagementQuotaPolicy.MAX_LIMIT) Integer inspect,
      @Min(1) @Max(ManagementQuotaPolicy.MAX_LIMIT) Integer modelUsageRead,
      @Min(1) @Max(ManagementQuotaPolicy.MAX_LIMIT) Integer artifactUpload) {

    public Limits {
      propose = propose == null ? QuotaOperation.PROPOSE.defaultLimit() : propose;
      decide = decide == null ? QuotaOperation.DECIDE.defaultLimit() : decide;
      inspect = inspect == null ? QuotaOperation.INSPECT.defaultLimit() : inspect;
      modelUsageRead =
          modelUsageRead == null ? QuotaOperation.MODEL_USAGE_READ.defaultLimit() : modelUsageRead;
      artifactUpload =
          artifactUpload == null ? QuotaOperation.ARTIFACT_UPLOAD.defaultLimit() : artifactUpload;
    }
  }
}
