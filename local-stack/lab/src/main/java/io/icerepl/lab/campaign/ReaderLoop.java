package io.icerepl.lab.campaign;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A reader opening the replica in a loop while the campaign runs. Whatever an open throws counts as
 * a failure, errors included (a NoClassDefFoundError or an assertion would otherwise end the thread
 * unseen and leave the campaign to pass without a reader).
 */
final class ReaderLoop implements Runnable {
  private final LongSupplier openAndScan;
  private final long pauseMillis;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong opens = new AtomicLong();
  private final AtomicLong notYet = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong rows = new AtomicLong();
  private final List<String> failureMessages = Collections.synchronizedList(new ArrayList<>());

  /**
   * @param openAndScan opens the replica and returns the rows read, or -1 while it does not exist
   */
  ReaderLoop(LongSupplier openAndScan, long pauseMillis) {
    this.openAndScan = openAndScan;
    this.pauseMillis = pauseMillis;
  }

  @Override
  public void run() {
    while (running.get()) {
      readOnce();
      CrashCampaign.sleep(pauseMillis);
    }
  }

  void readOnce() {
    try {
      long read = openAndScan.getAsLong();
      if (read < 0) {
        notYet.incrementAndGet();
        CrashCampaign.sleep(50);
      } else {
        opens.incrementAndGet();
        rows.addAndGet(read);
      }
    } catch (Throwable e) {
      failures.incrementAndGet();
      if (failureMessages.size() < 5) {
        failureMessages.add(e.toString());
      }
    }
  }

  void stop() {
    running.set(false);
  }

  /** Opens that read the replica's current snapshot. */
  long opens() {
    return opens.get();
  }

  long notYet() {
    return notYet.get();
  }

  long failures() {
    return failures.get();
  }

  long rows() {
    return rows.get();
  }

  List<String> failureMessages() {
    return List.copyOf(failureMessages);
  }
}
