package io.icerepl.app.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * A real source table written with the Iceberg library (HadoopTables at a local directory), with
 * helpers to write data and delete files, and the expectations recorded from it.
 */
public final class ScenarioTable {
  private static final AtomicInteger TASK_IDS = new AtomicInteger();

  private final String name;
  private final String location;
  private final Configuration conf;
  private final ScenarioExpectations expectations = new ScenarioExpectations();
  private Table table;

  private ScenarioTable(String name, String location, Configuration conf, Table table) {
    this.name = name;
    this.location = location;
    this.conf = conf;
    this.table = table;
  }

  /** Creates the table at {@code location} (an absolute path or a file: URI). */
  public static ScenarioTable create(
      String name,
      String location,
      Schema schema,
      PartitionSpec spec,
      SortOrder sortOrder,
      Map<String, String> properties) {
    Configuration conf = new Configuration();
    Table table =
        new HadoopTables(conf)
            .create(
                schema,
                spec,
                sortOrder == null ? SortOrder.unsorted() : sortOrder,
                properties,
                location);
    return new ScenarioTable(name, location, conf, table);
  }

  /** A table another catalog created (a location it may move), recorded like the others. */
  public static ScenarioTable of(String name, String location, Table table) {
    return new ScenarioTable(name, location, new Configuration(), table);
  }

  public String name() {
    return name;
  }

  /** The location the table was created at, as given (path or file: URI). */
  public String location() {
    return location;
  }

  public Configuration conf() {
    return conf;
  }

  /** The table, refreshed. */
  public Table table() {
    table.refresh();
    return table;
  }

  public ScenarioExpectations expectations() {
    return expectations;
  }

  @Override
  public String toString() {
    return name;
  }

  // ---------------------------------------------------------------- rows

  /** A row of the current schema, values in column order (missing trailing values are null). */
  public Record row(Object... values) {
    GenericRecord record = GenericRecord.create(table().schema());
    for (int i = 0; i < values.length; i++) {
      record.set(i, values[i]);
    }
    return record;
  }

  // ---------------------------------------------------------------- data files

  /** Writes {@code rows} to new data files, one per partition of the current spec; no commit. */
  public List<DataFile> writeDataFiles(List<Record> rows) {
    Table t = table();
    PartitionSpec spec = t.spec();
    Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
    PartitionKey key = new PartitionKey(spec, t.schema());
    for (Record row : rows) {
      key.partition(row);
      byPartition.computeIfAbsent(key.copy(), k -> new ArrayList<>()).add(row);
    }
    List<DataFile> files = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> entry : byPartition.entrySet()) {
      files.add(
          writeDataFile(t, spec, spec.isUnpartitioned() ? null : entry.getKey(), entry.getValue()));
    }
    return files;
  }

  /** Writes {@code rows}, which must all fall in one partition, to one data file; no commit. */
  public DataFile writeDataFile(List<Record> rows) {
    List<DataFile> files = writeDataFiles(rows);
    if (files.size() != 1) {
      throw new IllegalArgumentException("rows span " + files.size() + " partitions");
    }
    return files.get(0);
  }

  private DataFile writeDataFile(
      Table t, PartitionSpec spec, StructLike partition, List<Record> rows) {
    // the table's write.format.default, Parquet unless a scenario says otherwise
    FileFormat format =
        FileFormat.fromString(
            t.properties()
                .getOrDefault(
                    org.apache.iceberg.TableProperties.DEFAULT_FILE_FORMAT,
                    org.apache.iceberg.TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(t)
            .dataFileFormat(format)
            .dataSchema(t.schema())
            .dataSortOrder(t.sortOrder())
            .build();
    OutputFileFactory files = outputFiles(t, format);
    DataWriter<Record> writer =
        factory.newDataWriter(files.newOutputFile(spec, partition), spec, partition);
    try (DataWriter<Record> closing = writer) {
      rows.forEach(closing::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** Appends {@code rows} on main in one commit; returns the files written. */
  public List<DataFile> append(Record... rows) {
    return appendToBranch(null, rows);
  }

  /** Appends {@code rows} on {@code branch} (main when null) in one commit. */
  public List<DataFile> appendToBranch(String branch, Record... rows) {
    List<DataFile> files = writeDataFiles(Arrays.asList(rows));
    AppendFiles append = table().newAppend();
    files.forEach(append::appendFile);
    if (branch != null) {
      append.toBranch(branch);
    }
    append.commit();
    return files;
  }

  // ---------------------------------------------------------------- delete files

  /**
   * Writes one position delete file in {@code format} (PARQUET, AVRO or ORC) deleting {@code
   * positions} of the given data files, which must share spec and partition. No commit.
   */
  public DeleteFile writePositionDeletes(FileFormat format, Map<DataFile, long[]> positions) {
    Table t = table();
    DataFile first = positions.keySet().iterator().next();
    PartitionSpec spec = t.specs().get(first.specId());
    StructLike partition = spec.isUnpartitioned() ? null : first.partition();
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(t).deleteFileFormat(format).build();
    // position deletes are sorted by file path, then position
    TreeMap<String, TreeSet<Long>> sorted = new TreeMap<>();
    positions.forEach(
        (file, pos) ->
            Arrays.stream(pos)
                .forEach(
                    p -> sorted.computeIfAbsent(file.location(), k -> new TreeSet<>()).add(p)));
    PositionDeleteWriter<Record> writer =
        factory.newPositionDeleteWriter(
            outputFiles(t, format).newOutputFile(spec, partition), spec, partition);
    try (PositionDeleteWriter<Record> closing = writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      sorted.forEach((path, set) -> set.forEach(p -> closing.write(delete.set(path, p))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** A position delete file referencing one data file only (file_path bounds are equal). */
  public DeleteFile writePositionDeletes(FileFormat format, DataFile file, long... positions) {
    return writePositionDeletes(format, Map.of(file, positions));
  }

  /**
   * Writes one equality delete file on column {@code column} in {@code format}, in the spec and
   * partition of {@code partitionOf}. {@code values} are the deleted values. No commit.
   */
  public DeleteFile writeEqualityDeletes(
      FileFormat format, DataFile partitionOf, String column, Object... values) {
    Table t = table();
    Schema deleteSchema = t.schema().select(column);
    int fieldId = t.schema().findField(column).fieldId();
    PartitionSpec spec = t.specs().get(partitionOf.specId());
    StructLike partition = spec.isUnpartitioned() ? null : partitionOf.partition();
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(t)
            .deleteFileFormat(format)
            .equalityFieldIds(new int[] {fieldId})
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    EqualityDeleteWriter<Record> writer =
        factory.newEqualityDeleteWriter(
            outputFiles(t, format).newOutputFile(spec, partition), spec, partition);
    try (EqualityDeleteWriter<Record> closing = writer) {
      for (Object value : values) {
        GenericRecord record = GenericRecord.create(deleteSchema);
        record.set(0, value);
        closing.write(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /**
   * Writes deletion vectors (one Puffin file) deleting {@code positions} of data files that have no
   * deletes yet. No commit.
   */
  public List<DeleteFile> writeDeletionVectors(Map<DataFile, long[]> positions) {
    Table t = table();
    BaseDVFileWriter writer = new BaseDVFileWriter(outputFiles(t, FileFormat.PUFFIN), path -> null);
    try (BaseDVFileWriter closing = writer) {
      positions.entrySet().stream()
          .sorted(Comparator.comparing(e -> e.getKey().location()))
          .forEach(
              e -> {
                DataFile file = e.getKey();
                PartitionSpec spec = t.specs().get(file.specId());
                for (long p : e.getValue()) {
                  closing.delete(file.location(), p, spec, file.partition());
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result().deleteFiles();
  }

  /**
   * The same deletion vectors with the footer of each Puffin file LZ4-compressed in place (flags
   * bit 0), as the Puffin spec allows and Iceberg 1.12 cannot write; blobs stay where they were. No
   * commit.
   */
  public List<DeleteFile> withLz4CompressedFooters(List<DeleteFile> deletionVectors) {
    Table t = table();
    Map<String, Long> lengths = new LinkedHashMap<>();
    List<DeleteFile> result = new ArrayList<>();
    for (DeleteFile dv : deletionVectors) {
      long length =
          lengths.computeIfAbsent(
              dv.location(),
              location -> {
                // through the table's FileIO, so Hadoop's checksum sidecar is written anew too
                try (var in = t.io().newInputFile(location).newStream()) {
                  byte[] compressed =
                      io.icerepl.merge.puffin.Lz4PuffinFooters.compressFooter(in.readAllBytes());
                  try (var out = t.io().newOutputFile(location).createOrOverwrite()) {
                    out.write(compressed);
                  }
                  return (long) compressed.length;
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      result.add(
          org.apache.iceberg.FileMetadata.deleteFileBuilder(t.specs().get(dv.specId()))
              .copy(dv)
              .withFileSizeInBytes(length)
              .build());
    }
    return result;
  }

  /** Commits a row delta on main adding {@code deletes}. */
  public void commitDeletes(DeleteFile... deletes) {
    var delta = table().newRowDelta();
    for (DeleteFile delete : deletes) {
      delta.addDeletes(delete);
    }
    delta.commit();
  }

  public void commitDeletes(List<DeleteFile> deletes) {
    commitDeletes(deletes.toArray(new DeleteFile[0]));
  }

  private static OutputFileFactory outputFiles(Table t, FileFormat format) {
    return OutputFileFactory.builderFor(t, 1, TASK_IDS.incrementAndGet()).format(format).build();
  }

  // ---------------------------------------------------------------- statistics

  /**
   * Writes a Puffin table statistics file for the current snapshot (one blob of arbitrary bytes)
   * and a partition statistics file computed by the library, and commits both.
   */
  public void addStatisticsForCurrentSnapshot() {
    Table t = table();
    Snapshot current = t.currentSnapshot();
    String path =
        ((HasTableOperations) t)
            .operations()
            .metadataFileLocation("stats-" + java.util.UUID.randomUUID() + ".puffin");
    org.apache.iceberg.puffin.PuffinWriter writer =
        org.apache.iceberg.puffin.Puffin.write(t.io().newOutputFile(path))
            .createdBy("icerepl scenario")
            .build();
    try (org.apache.iceberg.puffin.PuffinWriter closing = writer) {
      closing.add(
          new org.apache.iceberg.puffin.Blob(
              "icerepl-test-blob",
              List.of(1),
              current.snapshotId(),
              current.sequenceNumber(),
              java.nio.ByteBuffer.wrap("ndv=8".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
      closing.finish();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    t.updateStatistics()
        .setStatistics(
            new org.apache.iceberg.GenericStatisticsFile(
                current.snapshotId(),
                path,
                writer.fileSize(),
                writer.footerSize(),
                org.apache.iceberg.GenericBlobMetadata.from(writer.writtenBlobsMetadata())))
        .commit();
    try {
      t.updatePartitionStatistics()
          .setPartitionStatistics(
              org.apache.iceberg.PartitionStatsHandler.computeAndWriteStatsFile(t))
          .commit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------- recording

  /**
   * Records what the table shows now (see {@link ScenarioExpectations} for how recordings merge)
   * and returns the expectations.
   */
  public ScenarioExpectations record() {
    Table t = table();
    TableMetadata metadata = ((HasTableOperations) t).operations().current();

    for (Snapshot snapshot : t.snapshots()) {
      if (!expectations.hasSnapshot(snapshot.snapshotId())) {
        expectations.putSnapshot(facts(snapshot), Rows.atSnapshot(t, snapshot.snapshotId()));
      }
    }

    if (metadata.formatVersion() >= 3) {
      for (Snapshot snapshot : t.snapshots()) {
        if (!expectations.lineageRows().containsKey(snapshot.snapshotId())) {
          expectations.putLineage(
              snapshot.snapshotId(), Rows.lineageAtSnapshot(t, snapshot.snapshotId()));
        }
      }
    }

    TreeSet<Long> probes = new TreeSet<>();
    for (Snapshot snapshot : t.snapshots()) {
      probes.add(snapshot.timestampMillis());
    }
    for (HistoryEntry entry : metadata.snapshotLog()) {
      probes.add(entry.timestampMillis());
      probes.add(entry.timestampMillis() - 1);
    }
    probes.addAll(expectations.asOfTime().keySet());
    if (!probes.isEmpty()) {
      probes.add(probes.first() - 1);
      probes.add(probes.last() + 1);
    }
    for (long ts : probes) {
      expectations.putAsOfTime(ts, asOfTime(t, ts, expectations.snapshotRows()::get));
    }

    Map<String, ScenarioExpectations.RefFacts> refs = new LinkedHashMap<>();
    new TreeMap<>(t.refs())
        .forEach(
            (refName, ref) ->
                refs.put(
                    refName,
                    new ScenarioExpectations.RefFacts(
                        refName,
                        ref.isBranch(),
                        ref.snapshotId(),
                        expectations.snapshotRows().containsKey(ref.snapshotId())
                            ? expectations.snapshotRows().get(ref.snapshotId())
                            : Rows.atSnapshot(t, ref.snapshotId()))));
    expectations.replaceRefs(refs);
    expectations.setTable(tableFacts(metadata));
    return expectations;
  }

  static ScenarioExpectations.SnapshotFacts facts(Snapshot snapshot) {
    return new ScenarioExpectations.SnapshotFacts(
        snapshot.snapshotId(),
        snapshot.parentId(),
        snapshot.sequenceNumber(),
        snapshot.timestampMillis(),
        snapshot.operation(),
        snapshot.schemaId(),
        snapshot.firstRowId(),
        snapshot.addedRows(),
        // v1 snapshots written before Iceberg 0.11 may have no summary
        snapshot.summary() == null ? new TreeMap<>() : new TreeMap<>(snapshot.summary()));
  }

  /**
   * The answer of {@code asOfTime(ts)} on {@code t}. The snapshot is chosen the way {@code
   * IcebergGenerics.read(t).asOfTime(ts)} chooses it; its rows come from {@code knownRows} when
   * that already holds them (reading them again would give the same answer), otherwise they are
   * read with {@code asOfTime}.
   */
  static ScenarioExpectations.AsOfAnswer asOfTime(
      Table t, long ts, java.util.function.Function<Long, List<String>> knownRows) {
    long snapshotId;
    try {
      snapshotId = SnapshotUtil.snapshotIdAsOfTime(t, ts);
    } catch (IllegalArgumentException e) {
      return ScenarioExpectations.AsOfAnswer.none();
    }
    List<String> rows = knownRows.apply(snapshotId);
    return new ScenarioExpectations.AsOfAnswer(
        snapshotId, rows != null ? rows : Rows.asOfTime(t, ts), false);
  }

  static ScenarioExpectations.TableFacts tableFacts(TableMetadata m) {
    Map<Integer, String> schemas = new TreeMap<>();
    m.schemasById().forEach((id, s) -> schemas.put(id, SchemaParser.toJson(s)));
    Map<Integer, String> specs = new TreeMap<>();
    m.specsById().forEach((id, s) -> specs.put(id, PartitionSpecParser.toJson(s)));
    Map<Integer, String> orders = new TreeMap<>();
    m.sortOrdersById().forEach((id, s) -> orders.put(id, SortOrderParser.toJson(s)));
    return new ScenarioExpectations.TableFacts(
        m.formatVersion(),
        m.currentSnapshot() == null ? null : m.currentSnapshot().snapshotId(),
        m.currentSchemaId(),
        m.defaultSpecId(),
        m.defaultSortOrderId(),
        m.lastSequenceNumber(),
        m.formatVersion() >= 3 ? m.nextRowId() : null,
        m.statisticsFiles().stream().map(f -> f.snapshotId()).sorted().toList(),
        m.partitionStatisticsFiles().stream().map(f -> f.snapshotId()).sorted().toList(),
        schemas,
        specs,
        orders);
  }

  /** The ref named {@code name}, or null. */
  public SnapshotRef ref(String refName) {
    return table().refs().get(refName);
  }
}
