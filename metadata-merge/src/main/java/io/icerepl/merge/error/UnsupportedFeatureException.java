package io.icerepl.merge.error;

/** A table feature the replicator refuses for now, such as encryption. */
public class UnsupportedFeatureException extends ReplicationException {
  public UnsupportedFeatureException(String message) {
    super(message, null);
  }
}
