package io.icerepl.app.service.status;

/** Where one replica stands. */
public enum ReplicationState {
  /** The replica is being created: no replica version exists yet. */
  BACKFILLING,
  /** The replica holds the source's current metadata version. */
  IN_SYNC,
  /** The source has versions the replica does not hold yet. */
  LAGGING,
  /** The last run failed; it is tried again after a back-off. */
  FAILED,
  /** The source head cannot be resolved yet (e.g. two files hold the newest version). */
  WAITING,
  /**
   * Source and replica disagree (replica changed behind the replicator's back, source rewound or
   * replaced).
   */
  DIVERGED,
  /**
   * The source catalog no longer lists the table: it is no longer replicated, and its replica is
   * kept as it was (a dropped source is never a reason to delete a replica).
   */
  SOURCE_DROPPED,
  /**
   * The replica was promoted (failover): it is a primary now, its state records the promotion, and
   * nothing is replicated into it. Not a failure: it is not retried.
   */
  PROMOTED,
  /**
   * The replica was promoted and the old source committed since: "the old primary wrote after
   * failover". Those commits are never replicated over the promoted table; fail-back keeps them.
   */
  OLD_PRIMARY_WROTE,
  /**
   * The replica was promoted and its source failed back from it: the source is the replica's
   * read-only replica now, and the replica the primary. Not a failure; it ends when the source is
   * promoted again (a switch-back), and becomes OLD_PRIMARY_WROTE when someone writes the source.
   */
  FAILED_BACK
}
