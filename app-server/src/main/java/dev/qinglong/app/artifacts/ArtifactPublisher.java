package dev.qinglong.app.artifacts;

import dev.qinglong.app.http.AuditLog;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.worker.PublicationPass;
import java.io.IOException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of the publication worker (docs/downloads.md): every approved install/upgrade proposal
 * whose artifact is stored and re-hashes to its digest becomes {@code published}. Idempotent and
 * safe to interrupt anywhere: the only write is a conditional {@code approved → published} update
 * per proposal, so a repeated pass, a crash half-way or a second worker around a take-over changes
 * nothing twice. Proposals whose artifact is missing or corrupt stay approved and are retried on
 * the next pass.
 */
public final class ArtifactPublisher implements PublicationPass {
  static final int PAGE = 100;
  private static final Logger log = LoggerFactory.getLogger(ArtifactPublisher.class);

  private final GovernanceStore store;
  private final FileArtifactStore artifacts;
  private final Clock clock;

  public ArtifactPublisher(GovernanceStore store, FileArtifactStore artifacts, Clock clock) {
    this.store = Objects.requireNonNull(store);
    this.artifacts = Objects.requireNonNull(artifacts);
    this.clock = Objects.requireNonNull(clock);
  }

  @Override
  public int publishOnce() {
    int published = 0;
    Map<Sha256Digest, Boolean> verified = new HashMap<>();
    String afterProject = "";
    String afterProposal = "";
    while (true) {
      List<Proposal> page = store.listApprovedUnpublished(afterProject, afterProposal, PAGE);
      for (Proposal p : page) {
        Sha256Digest digest = p.action().artifactDigest();
        if (verified.computeIfAbsent(digest, this::verify)
            && store.markPublished(p.projectId(), p.proposalId(), clock.millis())) {
          published++;
          log.info(
              "worker.published project={} proposal={} artifact={}",
              p.projectId(),
              p.proposalId(),
              digest.value());
          AuditLog.event("governance.published")
              .with("projectId", p.projectId())
              .with("proposalId", p.proposalId())
              .with("proposedBy", p.proposedBy())
              .with("action", p.action().type().wireName())
              .with("package", p.action().packageName())
              .with("version", p.action().version())
              .with("artifactDigest", digest.value())
              .log();
        }
      }
      if (page.size() < PAGE) {
        return published;
      }
      Proposal last = page.get(page.size() - 1);
      afterProject = last.projectId();
      afterProposal = last.proposalId();
    }
  }

  private boolean verify(Sha256Digest digest) {
    if (!artifacts.isPresent(digest)) {
      return false;
    }
    try {
      boolean ok = artifacts.verify(digest);
      if (!ok) {
        log.warn("worker.artifact-corrupt artifact={}: stored bytes do not match", digest.value());
      }
      return ok;
    } catch (IOException e) {
      log.warn("worker.artifact-unreadable artifact={}: {}", digest.value(), e.getMessage());
      return false;
    }
  }
}
