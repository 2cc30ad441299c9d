package io.icerepl.app.service;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;

/**
 * Opens a replica on an object store the way a reader without a catalog does (Hadoop tables,
 * ClickHouse {@code icebergS3}): {@code metadata/version-hint.text}, then past it to the newest
 * {@code v<N>.metadata.json} present, as a hint is written after its metadata file. What the status
 * API reports plays no part: the replica must be readable from its files alone.
 */
public final class HintedReplica {
  private HintedReplica() {}

  public static Table open(FileIO io, String location) {
    String metadata = location + "/metadata/";
    int version;
    try (InputStream in = io.newInputFile(metadata + "version-hint.text").newStream()) {
      version = Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    while (io.newInputFile(metadata + "v" + (version + 1) + ".metadata.json").exists()) {
      version++;
    }
    return new BaseTable(
        new StaticTableOperations(metadata + "v" + version + ".metadata.json", io), location);
  }
}
