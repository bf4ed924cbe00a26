package dev.qinglong.gateway.worker;

/**
 * One pass of the publication worker: publish every approved install/upgrade proposal whose
 * artifact is present and verified. Must be idempotent: a pass may be repeated after a crash at any
 * point, and (rarely, around a take-over) two workers may run a pass at the same time.
 */
@FunctionalInterface
public interface PublicationPass {

  /**
   * Runs one pass.
   *
   * @return how many proposals this pass moved to {@code published} (0 if there was nothing to do)
   * @throws RuntimeException on failure; the worker logs it and tries again on the next pass
   */
  int publishOnce();
}
