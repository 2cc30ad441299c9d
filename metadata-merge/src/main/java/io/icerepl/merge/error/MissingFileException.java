package io.icerepl.merge.error;

/** A file that live metadata references is not present at the source. */
public class MissingFileException extends ReplicationException {
  private final String path;

  public MissingFileException(String message, String path) {
    super(message, null);
    this.path = path;
  }

  public String path() {
    return path;
  }
}
