package io.icerepl.lab.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The peak heap of one phase of a run. A sampling thread reads the used heap every few
 * milliseconds, and every collection reports the heap just before it (the top of the sawtooth the
 * sampler can miss) and just after it (an upper bound of what was live then). Peak used depends on
 * when the collector chose to run; the largest heap after a collection is the steadier figure.
 */
final class HeapPeak implements AutoCloseable {
  private final AtomicLong peakUsed = new AtomicLong();
  private final AtomicLong peakAfterGc = new AtomicLong();
  private final Set<String> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toSet());
  private final List<Runnable> unregister = new ArrayList<>();
  private final Thread sampler;
  private volatile boolean running = true;

  private HeapPeak() {
    NotificationListener listener =
        (notification, handback) -> {
          if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
              notification.getType())) {
            return;
          }
          var info =
              GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData())
                  .getGcInfo();
          peakUsed.accumulateAndGet(heapSum(info.getMemoryUsageBeforeGc()), Math::max);
          peakAfterGc.accumulateAndGet(heapSum(info.getMemoryUsageAfterGc()), Math::max);
        };
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      NotificationEmitter emitter = (NotificationEmitter) gc;
      emitter.addNotificationListener(listener, null, null);
      unregister.add(
          () -> {
            try {
              emitter.removeNotificationListener(listener);
            } catch (Exception e) {
              // already gone
            }
          });
    }
    var memory = ManagementFactory.getMemoryMXBean();
    sampler =
        new Thread(
            () -> {
              while (running) {
                peakUsed.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                  Thread.sleep(5);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "heap-peak");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Collects first, so the phase starts from the live heap of what came before. */
  static HeapPeak start() {
    System.gc();
    System.gc();
    return new HeapPeak();
  }

  /** The heap used when this phase started, after collecting. */
  static long liveNow() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  long peakUsed() {
    return peakUsed.get();
  }

  long peakAfterGc() {
    return peakAfterGc.get();
  }

  private long heapSum(Map<String, MemoryUsage> pools) {
    return pools.entrySet().stream()
        .filter(e -> heapPools.contains(e.getKey()))
        .mapToLong(e -> e.getValue().getUsed())
        .sum();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    sampler.interrupt();
    sampler.join();
    // notifications arrive shortly after a collection: let the last ones land
    Thread.sleep(50);
    unregister.forEach(Runnable::run);
  }
}
