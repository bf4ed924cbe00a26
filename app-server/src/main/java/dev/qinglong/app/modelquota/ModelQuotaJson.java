package dev.qinglong.app.modelquota;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.qinglong.core.modelquota.Admission;
import dev.qinglong.core.modelquota.Completion;
import dev.qinglong.core.modelquota.InvocationStart;
import dev.qinglong.core.modelquota.LedgerPage;
import dev.qinglong.core.modelquota.ModelInvocationPolicy;
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
import java.util.List;

/**
 * The wire shapes of the model quota routes: request bodies bound by Jackson (strictness in the
 * mapper's configuration; a whole number the route needs is {@code required}, so its absence is
 * refused by the binding), answers written by it. Values are checked once, by the core.
 */
public final class ModelQuotaJson {
  private ModelQuotaJson() {}

  public record ModelPolicyRequest(
      @JsonProperty(required = true) long maxTotalTokens, Long maxCostMicros) {}

  public record ProjectQuotaRequest(
      String window,
      @JsonProperty(required = true) long maxInvocations,
      @JsonProperty(required = true) long maxTokens,
      Long maxCostMicros) {}

  public record StepRunRequest(String stepRunId, String runId, String modelId) {}

  public record AdmissionRequest(String invocationId, String stepRunId) {}

  public record UsageBody(
      @JsonProperty(required = true) long inputTokens,
      @JsonProperty(required = true) long outputTokens,
      @JsonProperty(required = true) long totalTokens) {
    TokenUsage toUsage() {
      return new TokenUsage(inputTokens, outputTokens, totalTokens);
    }
  }

  public record CompletionRequest(String outcome, UsageBody usage, Long costMicros) {
    TokenUsage toUsage() {
      return usage == null ? null : usage.toUsage();
    }
  }

  public record ModelPolicyView(
      String projectId,
      String modelId,
      long revision,
      long maxTotalTokens,
      Long maxCostMicros,
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

  public record ProjectQuotaView(
      String projectId,
      long revision,
      String window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros,
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

  public record StepRunView(
      String projectId,
      String stepRunId,
      String runId,
      String modelId,
      String state,
      String invocationId,
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

  public record BudgetView(Long maxInvocations, Long maxTokens, Long maxCostMicros) {
    static BudgetView of(WindowBudget b) {
      return new BudgetView(b.maxInvocations(), b.maxTokens(), b.maxCostMicros());
    }
  }

  public record ReservationTotalsView(
      long seq, long invocations, long reservedTokens, long reservedCostMicros) {}

  public record ReservationView(
      String type,
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
      Long reservedCostMicros,
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

  public record StartView(
      String type,
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

  public record UsageView(long inputTokens, long outputTokens, long totalTokens) {
    static UsageView of(TokenUsage u) {
      return u == null ? null : new UsageView(u.inputTokens(), u.outputTokens(), u.totalTokens());
    }
  }

  public record SettlementTotalsView(long seq, long releasedTokens, long releasedCostMicros) {}

  public record SettlementView(
      String type,
      String invocationId,
      long windowStartMs,
      long windowMs,
      long settledTokens,
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

  public record CompletionView(
      String type,
      String invocationId,
      String stepRunId,
      String outcome,
      UsageView usage,
      Long costMicros,
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

  public record LedgerEntryView(
      String type,
      long ledgerSeq,
      String invocationId,
      String stepRunId,
      String runId,
      String modelId,
      String outcome,
      UsageView usage,
      Long costMicros,
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

  public record SettledView(
      String invocationId,
      String stepRunId,
      String projectId,
      String outcome,
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

  public record WindowLimitsView(Long maxInvocations, Long maxTokens, Long maxCostMicros) {}

  public record WindowUsageView(
      String projectId,
      long windowStartMs,
      long windowMs,
      long invocations,
      long tokens,
      long costMicros,
      WindowLimitsView limits,
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

  public record LedgerPageView(List<LedgerEntryView> items, String nextCursor) {
    static LedgerPageView of(LedgerPage page) {
      return new LedgerPageView(
          page.items().stream().map(LedgerEntryView::of).toList(), page.nextCursor());
    }
  }
}
