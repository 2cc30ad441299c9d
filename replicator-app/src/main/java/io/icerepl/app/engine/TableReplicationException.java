package io.icerepl.app.engine;

import io.icerepl.app.engine.fence.PromotedReplicaException;
import io.icerepl.merge.error.ReplicationException;
import java.util.Optional;

/** A replication of one table failed; the replica was left as it was. */
public final class TableReplicationException extends RuntimeException {
  private final String table;

  public TableReplicationException(String table, RuntimeException cause) {
    super(messageOf(table, cause), cause);
    this.table = table;
  }

  public String table() {
    return table;
  }

  public boolean retryable() {
    return getCause() instanceof ReplicationException r && r.retryable();
  }

  /** Why the replica refused the replication because it was promoted, if it did. */
  public Optional<PromotedReplicaException> promoted() {
    return getCause() instanceof PromotedReplicaException p ? Optional.of(p) : Optional.empty();
  }

  private static String messageOf(String table, RuntimeException cause) {
    String message = cause.getMessage();
    return message != null && message.contains(table)
        ? message
        : "Cannot replicate table " + table + ": " + message;
  }
}
