package io.icerepl.app.cli.options;

import io.icerepl.merge.model.TableMetadataParser;
import picocli.CommandLine.Option;

/**
 * The largest metadata file a command reads: a bound on the memory a hostile or broken file takes.
 */
public final class MetadataLimitOption {
  @Option(
      names = "--max-metadata-bytes",
      paramLabel = "<size>",
      converter = ByteSize.class,
      defaultValue = "256MiB",
      description = "Largest metadata file read, after decompression (e.g. 512MiB).")
  long maxMetadataBytes = TableMetadataParser.DEFAULT_MAX_METADATA_BYTES;

  public long maxMetadataBytes() {
    return maxMetadataBytes;
  }
}
