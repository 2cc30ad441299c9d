package io.icerepl.merge.error;

/**
 * The replica changed behind the replicator's back: it holds a table or a version the replicator
 * did not write. It is left alone, never overwritten.
 */
public class DivergedReplicaException extends ConflictException {
  public DivergedReplicaException(String message) {
    super(message);
  }
}
