package io.icerepl.copier.copy;

import io.icerepl.merge.copyplan.CopyStep;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import io.icerepl.merge.copyplan.StatisticsCopy;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A sink that puts nothing in place and counts what a plan would: the files copied byte for byte
 * with their bytes, and the files rewritten for the replica. A file counted once is taken as in
 * place from then on, so the versions of one dry run count each file once, as the run would copy it
 * once.
 */
public final class PlanCounter implements CopySink {
  private final Set<String> counted = new HashSet<>();
  private long filesCopied;
  private long bytesCopied;
  private long filesRewritten;

  @Override
  public synchronized boolean inFlight(String targetPath) {
    return counted.contains(targetPath);
  }

  @Override
  public synchronized void accept(CopyStep step) {
    if (step instanceof ManifestCopy manifest) {
      manifest.files().forEach(this::count);
      count(manifest.manifest());
    } else if (step instanceof ManifestListCopy list) {
      count(list.manifestList());
    } else if (step instanceof StatisticsCopy statistics) {
      statistics.files().forEach(this::count);
    }
  }

  /** The check is the copier's, of files a dry run does not copy: not run. */
  @Override
  public void accept(ManifestCopy step, CompletableFuture<Void> check) {
    accept(step);
  }

  private void count(FileCopy file) {
    if (!counted.add(file.target())) {
      return;
    }
    if (file.kind().rewritten()) {
      filesRewritten++;
    } else {
      filesCopied++;
      bytesCopied += Math.max(0, file.expectedSize());
    }
  }

  public synchronized long filesCopied() {
    return filesCopied;
  }

  /** The bytes of the files copied byte for byte, as their manifests record them. */
  public synchronized long bytesCopied() {
    return bytesCopied;
  }

  public synchronized long filesRewritten() {
    return filesRewritten;
  }
}
