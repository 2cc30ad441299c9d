package io.icerepl.app.service;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Opens a replica on an object store the way a reader without a catalog does (Hadoop tables,
 * ClickHouse {@code icebergS3}): {@code metadata/version-hint.text}, then past it to the newest
 * {@code v<N>.metadata.json} present, as a hint is written after its metadata file. What the status
 * API reports plays no part: the replica must be readable from its files alone.
 */
public final class HintedReplica {
  private HintedReplica() {}

  public static Table open(FileIO io, String location) {
    return new BaseTable(
        new StaticTableOperations(metadataFile(location, currentVersion(io, location)), io),
        location);
  }

  /**
   * Opens a table for writes the way Hadoop tables commit, on any FileIO: each commit writes {@code
   * v<N+1>.metadata.json}, then the hint. For one writer at a time (no atomic rename on S3).
   */
  public static Table openForWrites(FileIO io, String location) {
    return new BaseTable(new HintedOperations(io, location), location);
  }

  private static int currentVersion(FileIO io, String location) {
    int version;
    try (InputStream in = io.newInputFile(hintFile(location)).newStream()) {
      version = Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    while (io.newInputFile(metadataFile(location, version + 1)).exists()) {
      version++;
    }
    return version;
  }

  private static String metadataFile(String location, int version) {
    return location + "/metadata/v" + version + ".metadata.json";
  }

  private static String hintFile(String location) {
    return location + "/metadata/version-hint.text";
  }

  private static final class HintedOperations implements TableOperations {
    private final FileIO io;
    private final String location;
    private int version;
    private TableMetadata current;

    HintedOperations(FileIO io, String location) {
      this.io = io;
      this.location = location;
      refresh();
    }

    @Override
    public TableMetadata current() {
      return current;
    }

    @Override
    public TableMetadata refresh() {
      version = currentVersion(io, location);
      current = TableMetadataParser.read(io, metadataFile(location, version));
      return current;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (base != current) {
        throw new CommitFailedException("Cannot commit to %s: stale metadata", location);
      }
      TableMetadataParser.write(metadata, io.newOutputFile(metadataFile(location, version + 1)));
      try (OutputStream out = io.newOutputFile(hintFile(location)).createOrOverwrite()) {
        out.write(Integer.toString(version + 1).getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      refresh();
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return location + "/metadata/" + fileName;
    }

    @Override
    public LocationProvider locationProvider() {
      return LocationProviders.locationsFor(current.location(), current.properties());
    }
  }
}
