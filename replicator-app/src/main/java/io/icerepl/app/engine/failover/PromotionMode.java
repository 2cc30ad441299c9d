package io.icerepl.app.engine.failover;

import java.util.Locale;

/** How a replica is promoted. */
public enum PromotionMode {
  /** Replicate what the source still serves, verify, and refuse a replica that fails. */
  SAFE,
  /** Promote what the replica holds now: the source is unreachable. */
  NOW;

  /** The mode's name as the command line, the API and the promotion record spell it. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws IllegalArgumentException for anything but {@code safe} or {@code now}
   */
  public static PromotionMode parse(String value) {
    for (PromotionMode mode : values()) {
      if (mode.label().equals(value)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "Cannot promote with mode " + value + ": expected safe or now");
  }
}
