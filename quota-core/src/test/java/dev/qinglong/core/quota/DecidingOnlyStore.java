package dev.qinglong.core.quota;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A test store that only decides: every read or write of limits fails the test. */
public abstract class DecidingOnlyStore implements ManagementQuotaStore {
  /** The default limit 30 of the tests, from no policy. */
  public static final EffectiveLimit LIMIT = EffectiveLimit.defaultLimit(30);

  @Override
  public BucketsSnapshot buckets(String projectId, SubjectType subjectType, String subjectId) {
    throw new AssertionError("buckets not read in this test");
  }

  @Override
  public QuotaLimitsRevision putLimits(
      String projectId, String userId, QuotaLimits limits, String setBy) {
    throw new AssertionError("limits not written in this test");
  }

  @Override
  public Optional<QuotaLimitsRevision> limits(String projectId, String userId) {
    throw new AssertionError("limits not read in this test");
  }

  @Override
  public List<QuotaLimitsRevision> userLimits(String projectId, String afterUserId, int size) {
    throw new AssertionError("limits not read in this test");
  }

  @Override
  public List<ShadowRefusal> shadowRefusals(String projectId, Duration window, int size) {
    throw new AssertionError("shadow refusals not read in this test");
  }
}
