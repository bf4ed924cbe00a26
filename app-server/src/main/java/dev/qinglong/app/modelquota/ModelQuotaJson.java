package dev.qinglong.app.modelquota;

import static dev.qinglong.app.http.OpenApiDocument.IDENTIFIER;
import static dev.qinglong.app.http.OpenApiDocument.OUTCOME;
import static dev.qinglong.app.http.OpenApiDocument.STEP_RUN_STATE;
import static dev.qinglong.app.http.OpenApiDocument.WINDOW;
import static io.swagger.v3.oas.annotations.media.Schema.AdditionalPropertiesValue.FALSE;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.qinglong.core.modelquota.Admission;
import dev.qinglong.core.modelquota.Completion;
import dev.qinglong.core.modelquota.InvocationStart;
import dev.qinglong.core.modelquota.LedgerPage;
import dev.qinglong.core.modelquota.Limits;
import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.Settled;
import dev.qinglong.core.modelquota.Settlement;
import dev.qinglong.core.modelquota.StepRun;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowBudget;
import dev.qinglong.core.modelquota.WindowUsage;
import dev.qinglong.core.modelquota.WindowUsageReading;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * The wire shapes of the model quota routes: request bodies bound by Jackson (strictness in the
 * mapper's configuration; a whole number the route needs is {@code required}, so its absence is
 * refused by the binding), answers written by it. Values are checked once, by the core; the bounds
 * the annotations state for the OpenAPI document are the core's {@link Limits}.
 */
public final class ModelQuotaJson {
  private ModelQuotaJson() {}

  static final String TOKENS_MAX = "" + Limits.MAX_INVOCATION_TOKENS;
  static final String AMOUNT_MAX = "" + Limits.MAX_AMOUNT;

  @Schema(additionalProperties = FALSE)
  public record ModelPolicyRequest(
      @JsonProperty(required = true) @Schema(minimum = "1", maximum = TOKENS_MAX)
          long maxTotalTokens,
      @Schema(
              types = {"integer", "null"},
              minimum = "0",
              maximum = AMOUNT_MAX)
          Long maxCostMicros) {}

  @Schema(additionalProperties = FALSE)
  public record ProjectQuotaRequest(
      @Schema(ref = WINDOW) String window,
      @JsonProperty(required = true) @Schema(minimum = "1", maximum = "" + Limits.MAX_INVOCATIONS)
          long maxInvocations,
      @JsonProperty(required = true) @Schema(minimum = "1", maximum = AMOUNT_MAX) long maxTokens,
      @Schema(
              types = {"integer", "null"},
              minimum = "0",
              maximum = AMOUNT_MAX)
          Long maxCostMicros) {}

  @Schema(additionalProperties = FALSE)
  public record StepRunRequest(
      @Schema(ref = IDENTIFIER, description = "Idempotency key of the StepRun.") String stepRunId,
      @Schema(ref = IDENTIFIER) String runId,
      @Schema(ref = IDENTIFIER) String modelId) {}

  @Schema(additionalProperties = FALSE)
  public record AdmissionRequest(
      @Schema(ref = IDENTIFIER, description = "Idempotency key of the invocation.")
          String invocationId,
      @Schema(ref = IDENTIFIER) String stepRunId) {}

  @Schema(name = "UsageRequest", additionalProperties = FALSE)
  public record UsageBody(
      @JsonProperty(required = true) @Schema(minimum = "0", maximum = AMOUNT_MAX) long inputTokens,
      @JsonProperty(required = true) @Schema(minimum = "0", maximum = AMOUNT_MAX) long outputTokens,
      @JsonProperty(required = true)
          @Schema(
              minimum = "0",
              maximum = AMOUNT_MAX,
              description = "At least inputTokens + outputTokens; what quota settles on.")
          long totalTokens) {
    TokenUsage toUsage() {
      return new TokenUsage(inputTokens, outputTokens, totalTokens);
    }
  }

  @Schema(additionalProperties = FALSE)
  public record CompletionRequest(
      @Schema(ref = OUTCOME) String outcome,
      @Schema(
              types = {"object", "null"},
              description = "null (or absent) when unknown: the whole token reservation stays.")
          UsageBody usage,
      @Schema(
              types = {"integer", "null"},
              minimum = "0",
              maximum = AMOUNT_MAX,
              description = "Actual cost; null (or absent) when unknown.")
          Long costMicros) {
    TokenUsage toUsage() {
      return usage == null ? null : usage.toUsage();
    }
  }

  @Schema(name = "ModelPolicy")
  public record ModelPolicyView(
      String projectId,
      String modelId,
      long revision,
      long maxTotalTokens,
      @Schema(types = {"integer", "null"}) Long maxCostMicros,
      long createdAtMs) {
    static ModelPolicyView of(ModelInvocationPolicy p) {
      return new ModelPolicyView(
          p.projectId(),
          p.modelId(),
          p.revision(),
          p.maxTotalTokens(),
          p.maxCostMicros(),
          p.createdAtMs());
    }
  }

  @Schema(name = "ProjectQuota")
  public record ProjectQuotaView(
      String projectId,
      long revision,
      @Schema(ref = WINDOW) String window,
      long maxInvocations,
      long maxTokens,
      @Schema(types = {"integer", "null"}) Long maxCostMicros,
      long createdAtMs) {
    static ProjectQuotaView of(ProjectQuotaPolicy q) {
      return new ProjectQuotaView(
          q.projectId(),
          q.revision(),
          q.window().wireName(),
          q.maxInvocations(),
          q.maxTokens(),
          q.maxCostMicros(),
          q.createdAtMs());
    }
  }

  @Schema(name = "StepRun")
  public record StepRunView(
      String projectId,
      String stepRunId,
      String runId,
      String modelId,
      @Schema(ref = STEP_RUN_STATE) String state,
      @Schema(types = {"string", "null"}) String invocationId,
      long createdAtMs,
      long updatedAtMs) {
    static StepRunView of(StepRun s) {
      return new StepRunView(
          s.projectId(),
          s.stepRunId(),
          s.runId(),
          s.modelId(),
          s.state().wireName(),
          s.invocationId(),
          s.createdAtMs(),
          s.updatedAtMs());
    }
  }

  @Schema(
      name = "WindowBudget",
      description =
          "The window's limits bound by the reservation; all null when the Project had no quota.")
  public record BudgetView(
      @Schema(types = {"integer", "null"}) Long maxInvocations,
      @Schema(types = {"integer", "null"}) Long maxTokens,
      @Schema(types = {"integer", "null"}) Long maxCostMicros) {
    static BudgetView of(WindowBudget b) {
      return new BudgetView(b.maxInvocations(), b.maxTokens(), b.maxCostMicros());
    }
  }

  @Schema(name = "ReservationTotals")
  public record ReservationTotalsView(
      long seq, long invocations, long reservedTokens, long reservedCostMicros) {}

  @Schema(
      name = "Reservation",
      description = "Immutable reservation receipt; digest = SHA-256 of its canonical JSON.")
  public record ReservationView(
      @Schema(allowableValues = Reservation.TYPE) String type,
      String projectId,
      String invocationId,
      String stepRunId,
      String runId,
      String modelId,
      long modelPolicyRevision,
      long quotaPolicyRevision,
      long windowStartMs,
      long windowMs,
      BudgetView windowBudget,
      long reservedTokens,
      @Schema(types = {"integer", "null"}) Long reservedCostMicros,
      ReservationTotalsView windowTotals,
      long reservedAtMs,
      String digest) {
    static ReservationView of(Reservation r) {
      return new ReservationView(
          r.type(),
          r.projectId(),
          r.invocationId(),
          r.stepRunId(),
          r.runId(),
          r.modelId(),
          r.modelPolicyRevision(),
          r.quotaPolicyRevision(),
          r.windowStartMs(),
          r.windowMs(),
          BudgetView.of(r.budget()),
          r.reservedTokens(),
          r.reservedCostMicros(),
          new ReservationTotalsView(
              r.windowSeq(),
              r.windowInvocations(),
              r.windowReservedTokens(),
              r.windowReservedCostMicros()),
          r.reservedAtMs(),
          r.digest().value());
    }
  }

  @Schema(name = "InvocationStart")
  public record StartView(
      @Schema(allowableValues = InvocationStart.TYPE) String type,
      String invocationId,
      String stepRunId,
      String reservationDigest,
      long startedAtMs,
      String digest) {
    static StartView of(InvocationStart s) {
      return new StartView(
          s.type(),
          s.invocationId(),
          s.stepRunId(),
          s.reservationDigest().value(),
          s.startedAtMs(),
          s.digest().value());
    }
  }

  @Schema(name = "Admission")
  public record AdmissionView(
      String invocationId,
      String stepRunId,
      String projectId,
      ReservationView reservation,
      StartView start) {
    static AdmissionView of(Admission a) {
      Reservation r = a.reservation();
      return new AdmissionView(
          r.invocationId(),
          r.stepRunId(),
          r.projectId(),
          ReservationView.of(r),
          StartView.of(a.start()));
    }
  }

  @Schema(name = "TokenUsage")
  public record UsageView(long inputTokens, long outputTokens, long totalTokens) {
    static UsageView of(TokenUsage u) {
      return u == null ? null : new UsageView(u.inputTokens(), u.outputTokens(), u.totalTokens());
    }
  }

  @Schema(name = "SettlementTotals")
  public record SettlementTotalsView(long seq, long releasedTokens, long releasedCostMicros) {}

  @Schema(name = "Settlement")
  public record SettlementView(
      @Schema(allowableValues = Settlement.TYPE) String type,
      String invocationId,
      long windowStartMs,
      long windowMs,
      long settledTokens,
      @Schema(
              types = {"integer", "null"},
              description = "null exactly when the reservation reserved no cost.")
          Long settledCostMicros,
      long releasedTokens,
      long releasedCostMicros,
      String reservationDigest,
      String completionDigest,
      SettlementTotalsView windowTotals,
      long settledAtMs,
      String digest) {
    static SettlementView of(Settlement s) {
      return new SettlementView(
          s.type(),
          s.invocationId(),
          s.windowStartMs(),
          s.windowMs(),
          s.settledTokens(),
          s.settledCostMicros(),
          s.releasedTokens(),
          s.releasedCostMicros(),
          s.reservationDigest().value(),
          s.completionDigest().value(),
          new SettlementTotalsView(
              s.windowSettleSeq(), s.windowReleasedTokens(), s.windowReleasedCostMicros()),
          s.settledAtMs(),
          s.digest().value());
    }
  }

  @Schema(name = "Completion")
  public record CompletionView(
      @Schema(allowableValues = Completion.TYPE) String type,
      String invocationId,
      String stepRunId,
      @Schema(ref = OUTCOME) String outcome,
      @Schema(types = {"object", "null"}) UsageView usage,
      @Schema(types = {"integer", "null"}) Long costMicros,
      long completedAtMs,
      String digest) {
    static CompletionView of(Completion c) {
      return new CompletionView(
          c.type(),
          c.invocationId(),
          c.stepRunId(),
          c.outcome().wireName(),
          UsageView.of(c.usage()),
          c.costMicros(),
          c.completedAtMs(),
          c.digest().value());
    }
  }

  @Schema(name = "LedgerEntry")
  public record LedgerEntryView(
      @Schema(allowableValues = UsageLedgerEntry.TYPE) String type,
      long ledgerSeq,
      String invocationId,
      String stepRunId,
      String runId,
      String modelId,
      @Schema(ref = OUTCOME) String outcome,
      @Schema(types = {"object", "null"}) UsageView usage,
      @Schema(types = {"integer", "null"}) Long costMicros,
      String completionDigest,
      long recordedAtMs,
      String digest) {
    static LedgerEntryView of(UsageLedgerEntry e) {
      return new LedgerEntryView(
          e.type(),
          e.ledgerSeq(),
          e.invocationId(),
          e.stepRunId(),
          e.runId(),
          e.modelId(),
          e.outcome().wireName(),
          UsageView.of(e.usage()),
          e.costMicros(),
          e.completionDigest().value(),
          e.recordedAtMs(),
          e.digest().value());
    }
  }

  @Schema(name = "Settled")
  public record SettledView(
      String invocationId,
      String stepRunId,
      String projectId,
      @Schema(ref = OUTCOME) String outcome,
      SettlementView settlement,
      CompletionView completion,
      LedgerEntryView ledgerEntry) {
    static SettledView of(Settled s) {
      Completion c = s.completion();
      return new SettledView(
          c.invocationId(),
          c.stepRunId(),
          c.projectId(),
          c.outcome().wireName(),
          SettlementView.of(s.settlement()),
          CompletionView.of(c),
          LedgerEntryView.of(s.ledgerEntry()));
    }
  }

  @Schema(name = "WindowLimits")
  public record WindowLimitsView(
      @Schema(types = {"integer", "null"}) Long maxInvocations,
      @Schema(types = {"integer", "null"}) Long maxTokens,
      @Schema(types = {"integer", "null"}) Long maxCostMicros) {}

  @Schema(name = "WindowUsage")
  public record WindowUsageView(
      String projectId,
      long windowStartMs,
      long windowMs,
      long invocations,
      long tokens,
      long costMicros,
      WindowLimitsView limits,
      @Schema(description = "0 when the Project has no quota (unfenced day window).")
          long quotaPolicyRevision,
      long databaseNowMs) {
    static WindowUsageView of(WindowUsageReading reading) {
      WindowUsage u = reading.usage();
      ProjectQuotaPolicy q = reading.quota();
      return new WindowUsageView(
          u.window().projectId(),
          u.window().windowStartMs(),
          u.window().windowMs(),
          u.invocations(),
          u.tokens(),
          u.costMicros(),
          q == null
              ? new WindowLimitsView(null, null, null)
              : new WindowLimitsView(q.maxInvocations(), q.maxTokens(), q.maxCostMicros()),
          q == null ? 0 : q.revision(),
          reading.databaseNowMs());
    }
  }

  @Schema(name = "LedgerPage")
  public record LedgerPageView(
      @ArraySchema(maxItems = ModelQuota.MAX_LEDGER_PAGE) List<LedgerEntryView> items,
      @Schema(
              types = {"string", "null"},
              description = "Opaque; pass as cursor for the next page. null on the last page.")
          String nextCursor) {
    static LedgerPageView of(LedgerPage page) {
      return new LedgerPageView(
          page.items().stream().map(LedgerEntryView::of).toList(), page.nextCursor());
    }
  }
}
