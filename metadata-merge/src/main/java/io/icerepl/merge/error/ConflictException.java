package io.icerepl.merge.error;

/**
 * Source and replica disagree in a way the replicator must not resolve silently: a changed
 * table-uuid, an id reused with different content, a rewound source, a diverged replica.
 */
public class ConflictException extends ReplicationException {
  public ConflictException(String message) {
    super(message, null);
  }
}
