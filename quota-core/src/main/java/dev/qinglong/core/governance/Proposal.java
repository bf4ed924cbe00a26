package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Sha256Digest;

/** A proposed plugin-package action in a Project; {@code actionRef} is its idempotency identity. */
public record Proposal(
    String proposalId,
    String approvalId,
    String projectId,
    String actionRef,
    PluginPackageAction action,
    Sha256Digest actionDigest,
    String proposedBy,
    ProposalState state,
    long createdAtMs,
    long updatedAtMs) {}
