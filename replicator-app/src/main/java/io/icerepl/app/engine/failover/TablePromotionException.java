package io.icerepl.app.engine.failover;

/** A promotion was refused or failed; the replica was left as it was. */
public final class TablePromotionException extends RuntimeException {
  public TablePromotionException(String table, String reason, Throwable cause) {
    super("Cannot promote table " + table + ": " + reason, cause);
  }

  public TablePromotionException(String table, String reason) {
    this(table, reason, null);
  }
}
