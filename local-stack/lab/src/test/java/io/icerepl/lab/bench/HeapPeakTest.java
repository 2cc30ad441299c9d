package io.icerepl.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the memory benchmarks' figures rest on: the heap after a collection counts what a phase
 * holds live, and not what it let go before the collection.
 */
class HeapPeakTest {
  private static final long MIB = 1024 * 1024;
  private static final int HELD_MIB = 96;

  @Test
  void theHeapAfterACollectionCountsWhatThePhaseHoldsLive() throws InterruptedException {
    List<byte[]> held = new ArrayList<>();
    long before;
    long afterGc;
    try (HeapPeak peak = HeapPeak.start()) {
      before = HeapPeak.liveNow();
      for (int i = 0; i < HELD_MIB; i++) {
        held.add(new byte[(int) MIB]);
      }
      afterGc = collected(peak);
    }

    assertThat(held).hasSize(HELD_MIB);
    // "before" may still count garbage that other threads of the test JVM left since the phase's
    // own collection, which this collection frees: a quarter of the held mebibytes as slack, still
    // far above the half that the next test's let-go allocations must stay under
    assertThat(afterGc).isGreaterThanOrEqualTo(before + (HELD_MIB - HELD_MIB / 4) * MIB);
  }

  @Test
  void whatAPhaseAllocatedAndLetGoIsNotCounted() throws InterruptedException {
    long afterGc;
    long before;
    try (HeapPeak peak = HeapPeak.start()) {
      before = HeapPeak.liveNow();
      // as much allocated as above, never more than a mebibyte of it live
      byte[] last = null;
      for (int i = 0; i < HELD_MIB; i++) {
        last = new byte[(int) MIB];
      }
      assertThat(last).hasSize((int) MIB);
      afterGc = collected(peak);
    }

    assertThat(afterGc).isPositive().isLessThan(before + (HELD_MIB / 2) * MIB);
  }

  /** Collects, and waits for the collector's notification to reach the phase. */
  private static long collected(HeapPeak peak) throws InterruptedException {
    System.gc();
    for (int i = 0; i < 500 && peak.peakAfterGc() == 0; i++) {
      Thread.sleep(10);
    }
    return peak.peakAfterGc();
  }
}
