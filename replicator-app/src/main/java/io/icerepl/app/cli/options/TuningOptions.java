package io.icerepl.app.cli.options;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.merge.path.PathMapping;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import picocli.CommandLine.Mixin;

/**
 * How a command reads and copies a table, as a replication does: the largest metadata file it
 * reads, how old a source head without a version hint must be, and how many files it copies at
 * once.
 */
public final class TuningOptions {
  @Mixin MetadataLimitOption metadataLimit;

  @Mixin SettleTimeOption settle;

  @Mixin ThreadsOption threads;

  public long maxMetadataBytes() {
    return metadataLimit.maxMetadataBytes();
  }

  /**
   * @throws IllegalArgumentException when the value is not a duration
   */
  public Duration settleTime() {
    return settle.settleTime();
  }

  public int threads() {
    return threads.threads();
  }

  /** A pool of {@link #threads()} threads; the caller shuts it down. */
  public ExecutorService newPool() {
    return Executors.newFixedThreadPool(threads());
  }

  /** A replication's options with these settings, mapping only the table's own locations. */
  public ReplicationOptions replication() {
    return replication(List.of(), false);
  }

  /**
   * A replication's options with these settings.
   *
   * @param prefixes path prefixes mapped beyond the table's own locations
   * @param coalesce whether only the newest source version is applied
   * @throws IllegalArgumentException when the settle time is not a duration
   */
  public ReplicationOptions replication(List<PathMapping.Prefix> prefixes, boolean coalesce) {
    return new ReplicationOptions(prefixes, coalesce, maxMetadataBytes(), threads(), settleTime());
  }
}
