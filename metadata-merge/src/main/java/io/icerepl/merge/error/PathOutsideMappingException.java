package io.icerepl.merge.error;

/** A path that no (source prefix → target prefix) pair covers: never passed through silently. */
public class PathOutsideMappingException extends BadInputException {
  public PathOutsideMappingException(String message) {
    super(message);
  }
}
