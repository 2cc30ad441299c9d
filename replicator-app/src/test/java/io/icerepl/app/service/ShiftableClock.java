package io.icerepl.app.service;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** The system clock moved forward on demand, so a test sees lag grow without waiting for it. */
public final class ShiftableClock extends Clock {
  private final AtomicLong offsetMs = new AtomicLong();

  public void advance(Duration by) {
    offsetMs.addAndGet(by.toMillis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + offsetMs.get();
  }
}
