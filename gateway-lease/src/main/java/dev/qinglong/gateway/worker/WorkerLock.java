package dev.qinglong.gateway.worker;

import dev.qinglong.core.kernel.StoreUnavailableException;

/**
 * The publication-worker lock: at most one holder per database at a time. It is released when the
 * holder releases it or when the holder's database session ends, whichever comes first.
 */
public interface WorkerLock extends AutoCloseable {

  /**
   * The lock of an embedded (SQLite) deployment, where one process is the whole system: always
   * held. Never use it with a shared database.
   */
  static WorkerLock singleProcess() {
    return new WorkerLock() {
      @Override
      public boolean tryAcquire() {
        return true;
      }

      @Override
      public boolean isHeld() {
        return true;
      }

      @Override
      public void close() {}
    };
  }

  /**
   * Tries once to take the lock, without waiting.
   *
   * @return {@code true} if this process holds the lock now (also if it already held it); {@code
   *     false} if another process holds it
   * @throws StoreUnavailableException if the database cannot be asked; the lock is then not held
   */
  boolean tryAcquire();

  /**
   * Checks with the database that this process still holds the lock.
   *
   * @return {@code true} only if the lock's session is alive and holds the lock; {@code false}
   *     otherwise, including when the database cannot be reached (never throws for that)
   */
  boolean isHeld();

  /**
   * Releases the lock (ends its session). Idempotent; never throws. A later {@link #tryAcquire()}
   * starts a new session.
   */
  @Override
  void close();
}
