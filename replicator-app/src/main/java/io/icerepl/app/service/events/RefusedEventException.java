package io.icerepl.app.service.events;

/**
 * An event message the service will not act on: it is left on the queue, received again and ends in
 * the dead-letter queue. The message names nothing raw that could forge a log line.
 */
public final class RefusedEventException extends IllegalArgumentException {
  /** Why, as the {@code reason} tag of {@code replicator_events_refused_total}. */
  public enum Reason {
    TOO_MANY_RECORDS("too-many-records"),
    INVALID_KEY("invalid-key");

    private final String tag;

    Reason(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }

  private final Reason reason;

  RefusedEventException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
