package io.icerepl.merge.error;

/**
 * Base of every error the replicator reports for one table. Messages read "Cannot &lt;verb&gt;
 * &lt;noun&gt;: &lt;reason&gt;" and name the file concerned.
 */
public abstract class ReplicationException extends RuntimeException {
  protected ReplicationException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether running the same replication again later may succeed without any change to input. */
  public boolean retryable() {
    return false;
  }
}
