package io.icerepl.merge.copyplan;

/** How a manifest entry's file is put in place, from its content type and format. */
public final class DeleteFileKinds {
  private DeleteFileKinds() {}

  /** content: 0 data, 1 position deletes, 2 equality deletes (manifest {@code content} field). */
  public static FileKind of(int content, String fileFormat) {
    return switch (content) {
      case 0 -> FileKind.DATA;
      case 1 ->
          "PUFFIN".equalsIgnoreCase(fileFormat)
              ? FileKind.DELETION_VECTOR
              : FileKind.POSITION_DELETE;
      case 2 -> FileKind.EQUALITY_DELETE;
      default ->
          throw new io.icerepl.merge.error.BadInputException(
              "Cannot classify file: unknown content " + content);
    };
  }
}
