package io.icerepl.merge.copyplan;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A manifest the replica lacks, with the files it names that the replica lacks: those files are put
 * in place first, then the manifest is rewritten, so it never names a file not there yet.
 *
 * @param manifest the manifest to rewrite
 * @param files the files to put in place, neither at the replica nor being put in place by an
 *     earlier step
 * @param copiedEntries the positions, among the manifest's live entries in file order, of the
 *     entries whose files are in {@code files}: the files put in place for this manifest can be
 *     found again from the manifest alone, without keeping their paths
 * @param awaited replica paths of files the manifest names that an earlier step of the same commit
 *     is putting in place
 * @param rewrittenElsewhere delete files the manifest names that an earlier commit or another step
 *     rewrites, by source path: their replica lengths are read from the replica
 * @param sourceLengthsChecked whether the planner found each of {@code files} at the source with
 *     its recorded length; if not, the copier checks each copy's length instead
 */
public record ManifestCopy(
    FileCopy manifest,
    List<FileCopy> files,
    BitSet copiedEntries,
    List<String> awaited,
    Map<String, FileCopy> rewrittenElsewhere,
    boolean sourceLengthsChecked)
    implements CopyStep {

  public ManifestCopy {
    Objects.requireNonNull(manifest, "manifest");
    files = List.copyOf(files);
    copiedEntries = (BitSet) copiedEntries.clone();
    awaited = List.copyOf(awaited);
    rewrittenElsewhere = Map.copyOf(rewrittenElsewhere);
  }

  @Override
  public BitSet copiedEntries() {
    return (BitSet) copiedEntries.clone();
  }

  @Override
  public int size() {
    return files.size() + 1;
  }
}
