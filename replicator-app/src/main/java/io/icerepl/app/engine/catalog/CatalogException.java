package io.icerepl.app.engine.catalog;

import io.icerepl.merge.error.ReplicationException;

/**
 * A catalog that is down, refuses the replicator's credentials or answers with an error. It names
 * the catalog and the table; the replica is left as it was. Retrying later may succeed.
 */
public final class CatalogException extends ReplicationException {
  public CatalogException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
