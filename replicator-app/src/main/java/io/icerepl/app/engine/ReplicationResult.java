package io.icerepl.app.engine;

import io.icerepl.merge.path.PathMapping;
import java.util.List;

/**
 * What one replication did, and where source and replica stood after it.
 *
 * @param summary what it did
 * @param heads the source head it replicated up to and the replica head it read or published last
 */
public record ReplicationResult(ReplicationSummary summary, TableHeads heads) {

  /** The same, saying the run inferred and recorded this mirror mapping. */
  ReplicationResult withInferredMirror(List<PathMapping.Prefix> mirror) {
    return new ReplicationResult(summary.withInferredMirror(mirror), heads);
  }
}
