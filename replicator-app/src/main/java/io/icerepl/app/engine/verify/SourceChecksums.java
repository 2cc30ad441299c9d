package io.icerepl.app.engine.verify;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.copier.store.ObjectStore.ObjectInfo;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.verify.Reference;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A byte-for-byte copy's checksums against its source file's, for every algorithm both stores
 * report. A file no source prefix covers, or that the source removed since, has nothing to compare
 * with: the replica keeps what only it still holds.
 *
 * @param toSource maps a replica path back to its source path
 * @param source the source's store
 */
record SourceChecksums(PathMapping toSource, ObjectStore source) {

  /** The problems found: one line per checksum that differs, or the source could not be read. */
  List<String> compare(Reference file, ObjectInfo replica) {
    if (replica.checksums().isEmpty()) {
      return List.of();
    }
    String sourcePath;
    try {
      sourcePath = toSource.map(file.path());
    } catch (RuntimeException e) {
      return List.of(); // no source prefix covers it: nothing to compare with
    }
    Optional<ObjectInfo> original;
    try {
      original = source.info(sourcePath);
    } catch (IOException e) {
      return List.of(
          file.problem("cannot be compared with the source " + sourcePath + ": " + e.getMessage()));
    }
    if (original.isEmpty()) {
      return List.of(); // the source removed it since: the replica keeps what only it still holds
    }
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> checksum : replica.checksums().entrySet()) {
      String theirs = original.get().checksums().get(checksum.getKey());
      if (theirs != null && !theirs.equals(checksum.getValue())) {
        problems.add(
            file.problem(
                "its "
                    + checksum.getKey()
                    + " is "
                    + checksum.getValue()
                    + ", the source file "
                    + sourcePath
                    + " has "
                    + theirs));
      }
    }
    return problems;
  }
}
