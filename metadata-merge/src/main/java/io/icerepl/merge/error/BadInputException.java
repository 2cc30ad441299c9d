package io.icerepl.merge.error;

/** Source input that cannot be replicated as it is: malformed, truncated, or out of bounds. */
public class BadInputException extends ReplicationException {
  public BadInputException(String message) {
    super(message, null);
  }

  public BadInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
