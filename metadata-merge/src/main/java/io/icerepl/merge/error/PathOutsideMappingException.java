package io.icerepl.merge.error;

import java.util.Optional;

/** A path a table names that no prefix of the mapping covers. */
public class PathOutsideMappingException extends BadInputException {
  private final String path;

  public PathOutsideMappingException(String message) {
    this(null, message);
  }

  /**
   * @param path the path no prefix covers, for a caller that may cover it and try again
   */
  public PathOutsideMappingException(String path, String message) {
    super(message);
    this.path = path;
  }

  /** The path no prefix covers, where the thrower knew it. */
  public Optional<String> path() {
    return Optional.ofNullable(path);
  }
}
