package io.icerepl.merge.error;

/**
 * Another replication or retention run (in this process or another instance) holds the table:
 * nothing is wrong, the work is being done; try again later.
 */
public class TableBusyException extends ConflictException {
  public TableBusyException(String message) {
    super(message);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
