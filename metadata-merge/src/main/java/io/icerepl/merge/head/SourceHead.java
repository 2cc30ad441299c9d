package io.icerepl.merge.head;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.ReplicationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Picks a table's current metadata file from what its metadata folder holds. A new metadata file is
 * only a candidate: writers create {@code <V>-<uuid>.metadata.json} before their catalog commit,
 * and losing writers leave theirs behind. In order of trust: the version hint, then the newest
 * version when exactly one file holds it.
 */
public final class SourceHead {
  private SourceHead() {}

  /** Two files hold the newest version: the table waits until a later version names one. */
  public static final class AmbiguousHeadException extends ReplicationException {
    public AmbiguousHeadException(String message) {
      super(message, null);
    }

    @Override
    public boolean retryable() {
      return true;
    }
  }

  /**
   * @param metadataDir the metadata folder, for messages and for resolving the hint
   * @param fileNames the file names in the folder (any files: non-metadata names are ignored)
   * @param versionHint the content of {@code version-hint.text}, if present
   * @return the file name of the current metadata, empty when there is none
   */
  public static Optional<String> resolve(
      String metadataDir, Collection<String> fileNames, Optional<String> versionHint) {
    if (versionHint.isPresent()) {
      String hint = versionHint.get().trim();
      Optional<String> hinted = fromHint(hint, fileNames);
      if (hinted.isPresent()) {
        return hinted;
      }
      throw new BadInputException(
          "Cannot resolve the current metadata of " + metadataDir + ": version-hint.text says '"
              + hint + "' but no such metadata file exists");
    }
    long newest = -1;
    List<String> holders = new ArrayList<>();
    for (String name : fileNames) {
      OptionalLong version = MetadataFileNames.version(name);
      if (version.isEmpty()) {
        continue;
      }
      if (version.getAsLong() > newest) {
        newest = version.getAsLong();
        holders.clear();
      }
      if (version.getAsLong() == newest) {
        holders.add(name);
      }
    }
    if (holders.size() > 1) {
      holders.sort(null);
      throw new AmbiguousHeadException(
          "Cannot resolve the current metadata of " + metadataDir + ": version " + newest
              + " is held by more than one file " + holders
              + "; waiting for a later version to name one of them in its metadata-log");
    }
    return holders.stream().findFirst();
  }

  /**
   * A hint holds a version number (Iceberg's Hadoop tables), or a file name. Readers look past
   * the hint for the next version, so the newest consecutive version from it wins.
   */
  private static Optional<String> fromHint(String hint, Collection<String> fileNames) {
    if (hint.matches("\\d+")) {
      long version = Long.parseLong(hint);
      Optional<String> found = withVersion(version, fileNames);
      if (found.isEmpty()) {
        return Optional.empty();
      }
      Optional<String> next = withVersion(version + 1, fileNames);
      while (next.isPresent()) {
        found = next;
        version++;
        next = withVersion(version + 1, fileNames);
      }
      return found;
    }
    String name = MetadataFileNames.fileName(hint);
    return fileNames.contains(name) ? Optional.of(name) : Optional.empty();
  }

  private static Optional<String> withVersion(long version, Collection<String> fileNames) {
    for (String prefix : new String[] {"v" + version + ".", "v" + version + "-"}) {
      for (String name : fileNames) {
        if (name.startsWith(prefix) && MetadataFileNames.isMetadataFile(name)) {
          return Optional.of(name);
        }
      }
    }
    return Optional.empty();
  }
}
