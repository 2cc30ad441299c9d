package io.icerepl.app.engine;

import io.icerepl.app.engine.batch.BatchPreCopy;
import io.icerepl.app.engine.fence.PromotionFence;
import io.icerepl.app.engine.head.SourceHeadResolver;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.app.engine.replication.PrefixLedger;
import io.icerepl.app.engine.replication.VersionStep;
import io.icerepl.app.engine.retention.PendingDeletion;
import io.icerepl.copier.copy.CopyPlanner;
import io.icerepl.copier.copy.PlanExecutor;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.state.KnownCurrent;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a {@link TableReplicator} is made of, as its runs and dry runs use it: built once, by the
 * replicator's builder.
 *
 * @param lastPublished the replica version published last (see {@link
 *     TableReplicator.Builder#lastPublished})
 */
record ReplicatorParts(
    ObjectStore source,
    ObjectStore target,
    Clock clock,
    ReplicationOptions options,
    CopyPlanner planner,
    PlanExecutor executor,
    ReplicaFiles replicaFiles,
    SourceHeadResolver headResolver,
    PendingDeletion pendingDeletion,
    Optional<BatchPreCopy> batchPreCopy,
    PromotionFence fence,
    AtomicReference<ReplicaHead> lastPublished,
    KnownCurrent knownCurrent,
    PrefixLedger ledger,
    VersionStep step) {}
