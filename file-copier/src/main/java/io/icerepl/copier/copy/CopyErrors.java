package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.MissingFileException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.OptionalLong;

/**
 * The errors of planning and copying a table's files, each naming the table, the file and what
 * names it, so the planner, the source length check and the copier word them alike.
 */
final class CopyErrors {
  private CopyErrors() {}

  /**
   * Asks the source for a file's length: one missing, or of another length than {@code namedBy}
   * records, is refused naming the table, the file and what names it.
   */
  static void checkAtSource(ObjectStore source, String table, FileCopy file, String namedBy)
      throws IOException {
    OptionalLong atSource = source.length(file.source());
    if (atSource.isEmpty()) {
      throw missing(table, noun(file.kind()), file.source(), namedBy);
    }
    if (file.expectedSize() >= 0 && atSource.getAsLong() != file.expectedSize()) {
      throw wrongLength(
          table, file.kind(), file.source(), atSource.getAsLong(), file.expectedSize(), namedBy);
    }
  }

  static MissingFileException missing(String table, String noun, String path, String namedBy) {
    return new MissingFileException(
        "Cannot replicate table "
            + table
            + ": "
            + noun
            + " "
            + path
            + " named by "
            + namedBy
            + " is missing at the source",
        path);
  }

  static BadInputException wrongLength(
      String table, FileKind kind, String path, long actual, long recorded, String namedBy) {
    return new BadInputException(
        "Cannot replicate table "
            + table
            + ": "
            + noun(kind)
            + " "
            + path
            + " is "
            + actual
            + " bytes but its "
            + namedBy
            + " records "
            + recorded);
  }

  static String noun(FileKind kind) {
    return switch (kind) {
      case DATA -> "data file";
      case EQUALITY_DELETE -> "equality delete file";
      case POSITION_DELETE -> "position delete file";
      case DELETION_VECTOR -> "deletion vector file";
      case STATISTICS -> "statistics file";
      case MANIFEST -> "manifest";
      case MANIFEST_LIST -> "manifest list";
    };
  }

  /** An I/O error putting one file in place, naming the file and the table. */
  static UncheckedIOException cannotPut(String table, FileCopy file, IOException e) {
    return new UncheckedIOException(
        "Cannot put "
            + noun(file.kind())
            + " "
            + file.target()
            + " of table "
            + table
            + " in place: "
            + e.getMessage(),
        e);
  }
}
