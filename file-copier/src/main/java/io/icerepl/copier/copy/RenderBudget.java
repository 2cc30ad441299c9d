package io.icerepl.copier.copy;

import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import java.util.concurrent.Semaphore;

/**
 * Bytes of rewritten manifests and manifest lists one run holds in memory, rendered while the files
 * they name are still being put in place, until they may be written. A step that finds no room
 * renders after its files, as a large one would anyway.
 */
final class RenderBudget {
  /** Bytes reserved per manifest a manifest list names, for its rendering ahead of time. */
  static final int LIST_BYTES_PER_MANIFEST = 1024;

  private final int capacity;
  private final Semaphore bytes;

  RenderBudget(int capacity) {
    this.capacity = capacity;
    this.bytes = new Semaphore(capacity);
  }

  /**
   * The bytes reserved to render the step's manifest ahead of its files, 0 to render it after them:
   * a manifest naming delete files that are rewritten needs their replica lengths, which only their
   * rewrite tells, and one of unknown length is not held in memory.
   */
  int reserve(ManifestCopy step) {
    long length = step.manifest().expectedSize();
    if (length < 0
        || !step.rewrittenElsewhere().isEmpty()
        || step.files().stream().anyMatch(f -> f.kind().rewritten())) {
      return 0;
    }
    return reserve(2 * length); // mapped paths may be longer than the source's
  }

  int reserve(ManifestListCopy step) {
    return reserve((long) LIST_BYTES_PER_MANIFEST * (step.manifests().size() + 1));
  }

  /** Gives back what {@link #reserve} returned, once the rendered file is written or failed. */
  void release(int reserved) {
    bytes.release(reserved);
  }

  private int reserve(long wanted) {
    if (wanted > capacity / 4) {
      return 0;
    }
    int reserved = (int) Math.max(1, wanted);
    return bytes.tryAcquire(reserved) ? reserved : 0;
  }
}
