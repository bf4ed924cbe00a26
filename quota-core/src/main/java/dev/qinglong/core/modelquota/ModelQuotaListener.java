package dev.qinglong.core.modelquota;

/** Observes model quota events, e.g. for metrics. Must not throw. */
public interface ModelQuotaListener {

  /** The event label. */
  enum Event {
    ADMITTED,
    ADMISSION_REPLAYED,
    REFUSED,
    SETTLED,
    SETTLEMENT_REPLAYED,
    CONFLICT,
    UNAVAILABLE
  }

  void observed(Event event);

  ModelQuotaListener NONE = event -> {};
}
