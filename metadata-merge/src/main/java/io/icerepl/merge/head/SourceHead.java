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
 * version when exactly one file holds it. Without a hint, a catalog-style file younger than the
 * settle time is not trusted yet: a losing writer's file, newer than the table's real state, is
 * often seen before the winner's, and often removed again by its writer.
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

  /** Every file in the metadata folder is younger than the settle time: the table waits. */
  public static final class UnsettledHeadException extends ReplicationException {
    public UnsettledHeadException(String message) {
      super(message, null);
    }

    @Override
    public boolean retryable() {
      return true;
    }
  }

  /** A file in the metadata folder and when it was last written. */
  public record Listed(String name, long lastModifiedMs) {}

  /**
   * @param head the current metadata file's name, empty when there is none
   * @param settlesAtMs when newer files passed over as too young are old enough to trust, if any
   * @param settlingSinceMs when the oldest of those files was written: the oldest change the head
   *     does not hold yet
   */
  public record Resolution(
      Optional<String> head, OptionalLong settlesAtMs, OptionalLong settlingSinceMs) {}

  /**
   * As {@link #resolve(String, Collection, Optional)}, passing over catalog-style files younger
   * than {@code settleMs} when there is no version hint. The newest settled file is the head; an
   * unsettled file's metadata-log is not trusted either, so the head is never taken from it.
   *
   * @param nowMs the current time (from the caller's clock)
   */
  public static Resolution resolve(
      String metadataDir,
      Collection<Listed> files,
      Optional<String> versionHint,
      long nowMs,
      long settleMs) {
    List<String> names = files.stream().map(Listed::name).toList();
    if (versionHint.isPresent()) {
      return new Resolution(
          resolve(metadataDir, names, versionHint), OptionalLong.empty(), OptionalLong.empty());
    }
    List<String> settled = new ArrayList<>();
    List<Listed> young = new ArrayList<>();
    for (Listed file : files) {
      boolean tooYoung =
          MetadataFileNames.isCatalogStyle(file.name()) && file.lastModifiedMs() > nowMs - settleMs;
      if (tooYoung) {
        young.add(file);
      } else {
        settled.add(file.name());
      }
    }
    Optional<String> head = resolve(metadataDir, settled, Optional.empty());
    long headVersion = head.map(h -> MetadataFileNames.version(h).getAsLong()).orElse(-1L);
    List<Listed> pending =
        young.stream()
            .filter(f -> MetadataFileNames.version(f.name()).getAsLong() > headVersion)
            .toList();
    if (pending.isEmpty()) {
      return new Resolution(head, OptionalLong.empty(), OptionalLong.empty());
    }
    if (head.isEmpty()) {
      throw new UnsettledHeadException(
          "Cannot resolve the current metadata of "
              + metadataDir
              + ": its metadata files "
              + pending.stream().map(Listed::name).sorted().toList()
              + " were written less than "
              + settleMs
              + " ms ago; waiting for them to settle");
    }
    long settlesAt =
        pending.stream().mapToLong(f -> f.lastModifiedMs() + settleMs).max().getAsLong();
    long settlingSince = pending.stream().mapToLong(Listed::lastModifiedMs).min().getAsLong();
    return new Resolution(head, OptionalLong.of(settlesAt), OptionalLong.of(settlingSince));
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
          "Cannot resolve the current metadata of "
              + metadataDir
              + ": version-hint.text says '"
              + hint
              + "' but no such metadata file exists");
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
          "Cannot resolve the current metadata of "
              + metadataDir
              + ": version "
              + newest
              + " is held by more than one file "
              + holders
              + "; waiting for a later version to name one of them in its metadata-log");
    }
    return holders.stream().findFirst();
  }

  /**
   * A hint holds a version number (Iceberg's Hadoop tables), or a file name. Readers look past the
   * hint for the next version, so the newest consecutive version from it wins.
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
