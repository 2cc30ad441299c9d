package io.icerepl.app.scenario;

import io.icerepl.merge.puffin.Lz4PuffinFooters;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.FileMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;

/**
 * Checks a replica against the expectations recorded from its source table. It loads the replica
 * the way any Iceberg reader would ({@code new HadoopTables(conf).load(replicaLocation)}), compares
 * what every recorded snapshot, timestamp and ref reads, and walks every metadata file, manifest
 * list, manifest, position delete file and Puffin deletion vector of the replica looking for paths
 * that still point under the source location and for sizes that do not match the replica's files.
 *
 * <p>All problems are collected; {@link #verify} fails with one message listing them all.
 */
public final class ReplicaVerifier {
  private static final Schema PATH_POS =
      new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
  private static final List<String> PATH_PROPERTIES =
      List.of(
          TableProperties.WRITE_DATA_LOCATION,
          TableProperties.WRITE_METADATA_LOCATION,
          TableProperties.OBJECT_STORE_PATH,
          TableProperties.WRITE_FOLDER_STORAGE_LOCATION);

  private final Configuration conf;

  public ReplicaVerifier() {
    this(new Configuration());
  }

  public ReplicaVerifier(Configuration conf) {
    this.conf = conf;
  }

  /** Verifies the replica at {@code replicaLocation} against {@code source}'s expectations. */
  public void verify(ScenarioTable source, String replicaLocation) {
    verify(source.expectations(), source.location(), replicaLocation);
  }

  /** Fails with an {@link AssertionError} listing every problem found. */
  public void verify(ScenarioExpectations expected, String sourceLocation, String replicaLocation) {
    verify(expected, sourceLocation, List.of(), replicaLocation);
  }

  /**
   * As above, for a source that also wrote outside its location: no replica path may point under
   * {@code otherSourcePrefixes} either.
   */
  public void verify(
      ScenarioExpectations expected,
      String sourceLocation,
      List<String> otherSourcePrefixes,
      String replicaLocation) {
    List<String> problems = new ArrayList<>();
    problems.addAll(readProblems(expected, replicaLocation));
    problems.addAll(fileProblems(sourceLocation, replicaLocation));
    for (String prefix : otherSourcePrefixes) {
      fileProblems(prefix, replicaLocation).stream()
          .filter(p -> p.contains("source"))
          .forEach(problems::add);
    }
    failIfAny(replicaLocation, problems);
  }

  static void failIfAny(String replicaLocation, List<String> problems) {
    if (!problems.isEmpty()) {
      throw new AssertionError(
          "replica "
              + replicaLocation
              + " has "
              + problems.size()
              + " problem(s):\n  - "
              + String.join("\n  - ", problems));
    }
  }

  /** Loads the replica as an Iceberg reader would. */
  public Table load(String replicaLocation) {
    return new HadoopTables(conf).load(replicaLocation);
  }

  // ================================================================ reads

  /** What the replica reads, compared with the expectations: snapshots, asOfTime, refs, facts. */
  public List<String> readProblems(ScenarioExpectations expected, String replicaLocation) {
    Table replica;
    try {
      replica = load(replicaLocation);
    } catch (RuntimeException e) {
      return new ArrayList<>(List.of("cannot load replica: " + e));
    }
    return readProblems(expected, replica, ts -> true);
  }

  /** As above, for a replica loaded by the caller (e.g. from an object store). */
  public List<String> readProblems(ScenarioExpectations expected, Table replica) {
    return readProblems(expected, replica, ts -> true);
  }

  /**
   * What {@code replica}, loaded by the caller (e.g. through a catalog), reads compared with the
   * expectations, probing {@code asOfTime} only at the recorded timestamps {@code asOfTimeProbes}
   * accepts.
   */
  public List<String> readProblems(
      ScenarioExpectations expected, Table replica, LongPredicate asOfTimeProbes) {
    List<String> problems = new ArrayList<>();

    // rows the replica read per snapshot id, so asOfTime and refs reuse them
    Map<Long, List<String>> replicaRows = new java.util.HashMap<>();
    for (Map.Entry<Long, List<String>> entry : expected.snapshotRows().entrySet()) {
      long id = entry.getKey();
      ScenarioExpectations.SnapshotFacts facts = expected.snapshots().get(id);
      String label =
          "snapshot " + id + " (" + facts.operation() + ", seq " + facts.sequenceNumber() + ")";
      Snapshot snapshot = replica.snapshot(id);
      if (snapshot == null) {
        problems.add(label + " is missing from the replica");
        continue;
      }
      ScenarioExpectations.SnapshotFacts actualFacts = ScenarioTable.facts(snapshot);
      if (!facts.equals(actualFacts)) {
        problems.add(label + ": snapshot facts differ: " + recordDiff(facts, actualFacts));
      }
      try {
        List<String> rows = Rows.atSnapshot(replica, id);
        replicaRows.put(id, rows);
        if (!rows.equals(entry.getValue())) {
          problems.add(label + ": rows differ: " + Rows.diff(entry.getValue(), rows));
        }
      } catch (RuntimeException e) {
        problems.add(label + ": cannot be read: " + e);
      }
    }

    for (Map.Entry<Long, List<String>> entry : expected.lineageRows().entrySet()) {
      long id = entry.getKey();
      if (replica.snapshot(id) == null) {
        continue; // reported above
      }
      try {
        List<String> rows = Rows.lineageAtSnapshot(replica, id);
        if (!rows.equals(entry.getValue())) {
          problems.add(
              "snapshot " + id + ": row lineage differs: " + Rows.diff(entry.getValue(), rows));
        }
      } catch (RuntimeException e) {
        problems.add("snapshot " + id + ": row lineage cannot be read: " + e);
      }
    }

    for (Map.Entry<Long, ScenarioExpectations.AsOfAnswer> entry : expected.asOfTime().entrySet()) {
      long ts = entry.getKey();
      if (!asOfTimeProbes.test(ts)) {
        continue;
      }
      ScenarioExpectations.AsOfAnswer want = entry.getValue();
      try {
        ScenarioExpectations.AsOfAnswer got = ScenarioTable.asOfTime(replica, ts, replicaRows::get);
        if (!Objects.equals(want.snapshotId(), got.snapshotId())) {
          problems.add(
              "asOfTime("
                  + ts
                  + ")"
                  + (want.historical() ? " (history the source has since expired)" : "")
                  + " picks snapshot "
                  + got.snapshotId()
                  + " on the replica, the source picked "
                  + want.snapshotId());
        } else if (!want.rows().equals(got.rows())) {
          problems.add("asOfTime(" + ts + ") rows differ: " + Rows.diff(want.rows(), got.rows()));
        }
      } catch (RuntimeException e) {
        problems.add("asOfTime(" + ts + ") cannot be read on the replica: " + e);
      }
    }

    Map<String, SnapshotRef> replicaRefs = replica.refs();
    if (!replicaRefs.keySet().equals(expected.refs().keySet())) {
      problems.add(
          "refs differ: source "
              + new TreeSet<>(expected.refs().keySet())
              + ", replica "
              + new TreeSet<>(replicaRefs.keySet()));
    }
    for (ScenarioExpectations.RefFacts ref : expected.refs().values()) {
      SnapshotRef actual = replicaRefs.get(ref.name());
      String label = (ref.branch() ? "branch " : "tag ") + ref.name();
      if (actual == null) {
        problems.add(label + " is missing from the replica");
        continue;
      }
      if (actual.isBranch() != ref.branch() || actual.snapshotId() != ref.snapshotId()) {
        problems.add(
            label
                + " points at "
                + (actual.isBranch() ? "branch " : "tag ")
                + actual.snapshotId()
                + " on the replica, expected snapshot "
                + ref.snapshotId());
        continue;
      }
      try {
        List<String> rows =
            replicaRows.computeIfAbsent(actual.snapshotId(), id -> Rows.atSnapshot(replica, id));
        if (!rows.equals(ref.rows())) {
          problems.add(label + ": rows differ: " + Rows.diff(ref.rows(), rows));
        }
      } catch (RuntimeException e) {
        problems.add(label + ": cannot be read: " + e);
      }
    }

    if (expected.table() != null) {
      TableMetadata current = ((HasTableOperations) replica).operations().current();
      ScenarioExpectations.TableFacts facts = ScenarioTable.tableFacts(current);
      if (!expected.table().equals(facts)) {
        problems.add("table facts differ: " + recordDiff(expected.table(), facts));
      }
    }
    return problems;
  }

  static String recordDiff(java.lang.Record expected, java.lang.Record actual) {
    List<String> diffs = new ArrayList<>();
    for (RecordComponent component : expected.getClass().getRecordComponents()) {
      try {
        Object want = component.getAccessor().invoke(expected);
        Object got = component.getAccessor().invoke(actual);
        if (!Objects.equals(want, got)) {
          diffs.add(component.getName() + ": expected " + want + ", replica " + got);
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return String.join("; ", diffs);
  }

  // ================================================================ files

  /**
   * Walks the replica's files: every {@code *.metadata.json} under its metadata directory is parsed
   * and checked, then every manifest list, manifest, position delete file and Puffin DV reachable
   * from any of them. A path must be under the replica location and never under the source
   * location; manifest_length and live entries' file_size_in_bytes must equal the replica files'
   * sizes.
   */
  public List<String> fileProblems(String sourceLocation, String replicaLocation) {
    FileWalk walk = new FileWalk(localPath(sourceLocation), localPath(replicaLocation));
    try {
      walk.run(load(replicaLocation).io());
    } catch (RuntimeException | IOException e) {
      walk.problems.add("cannot walk the replica's files: " + e);
    }
    return walk.problems;
  }

  private static final class FileWalk {
    private final String sourceRoot;
    private final String replicaRoot;
    private final boolean sameTable;
    private final List<String> problems = new ArrayList<>();
    private final Set<String> manifestLists = new LinkedHashSet<>();
    private final Set<String> manifests = new LinkedHashSet<>();
    private final Map<String, String> positionDeleteFiles = new TreeMap<>();
    private final Set<String> puffinFiles = new TreeSet<>();

    FileWalk(String sourceRoot, String replicaRoot) {
      this.sourceRoot = sourceRoot;
      this.replicaRoot = replicaRoot;
      this.sameTable = sourceRoot.equals(replicaRoot);
    }

    void run(FileIO io) throws IOException {
      Path metadataDir = Paths.get(replicaRoot, "metadata");
      List<Path> metadataFiles;
      try (Stream<Path> files = Files.list(metadataDir)) {
        metadataFiles =
            files
                .filter(p -> p.getFileName().toString().endsWith(".metadata.json"))
                .sorted()
                .collect(Collectors.toList());
      }
      if (metadataFiles.isEmpty()) {
        problems.add("no *.metadata.json under " + metadataDir);
      }
      Path hint = metadataDir.resolve("version-hint.text");
      if (!Files.exists(hint)) {
        problems.add("no version-hint.text under " + metadataDir);
      }
      for (Path file : metadataFiles) {
        checkMetadataFile(io, file);
      }
      for (String list : manifestLists) {
        checkManifestList(list);
      }
      for (String manifest : manifests) {
        checkManifest(manifest);
      }
      positionDeleteFiles.forEach((path, format) -> checkPositionDeleteFile(io, path, format));
      puffinFiles.forEach(path -> checkPuffin(io, path));
    }

    private void checkMetadataFile(FileIO io, Path file) throws IOException {
      String where = "metadata file " + file.getFileName();
      String text = Files.readString(file, StandardCharsets.UTF_8);
      for (String mention : sourceMentions(text)) {
        problems.add(where + " mentions a source path: " + mention);
      }
      TableMetadata m;
      try {
        m = TableMetadataParser.read(io, file.toString());
      } catch (RuntimeException e) {
        problems.add(where + " cannot be parsed: " + e);
        return;
      }
      if (!replicaRoot.equals(localPath(m.location()))) {
        problems.add(where + " has location " + m.location() + ", not the replica's");
      }
      for (String property : PATH_PROPERTIES) {
        String value = m.properties().get(property);
        if (value != null) {
          checkPath(where + " property " + property, value, false);
        }
      }
      for (Snapshot snapshot : m.snapshots()) {
        String list = snapshot.manifestListLocation();
        if (list == null) {
          // v1 snapshots from before manifest lists embed their manifests
          for (ManifestFile manifest : snapshot.allManifests(io)) {
            String label = where + " snapshot " + snapshot.snapshotId() + " manifest";
            if (checkPath(label, manifest.path(), true)) {
              manifests.add(localPath(manifest.path()));
            }
          }
          continue;
        }
        if (checkPath(
            where + " snapshot " + snapshot.snapshotId() + " manifest list", list, true)) {
          manifestLists.add(localPath(list));
        }
      }
      for (StatisticsFile stats : m.statisticsFiles()) {
        String label = where + " statistics file of snapshot " + stats.snapshotId();
        if (checkPath(label, stats.path(), true)) {
          checkSize(label, stats.path(), stats.fileSizeInBytes());
        }
      }
      for (PartitionStatisticsFile stats : m.partitionStatisticsFiles()) {
        String label = where + " partition statistics file of snapshot " + stats.snapshotId();
        if (checkPath(label, stats.path(), true)) {
          checkSize(label, stats.path(), stats.fileSizeInBytes());
        }
      }
      for (TableMetadata.MetadataLogEntry entry : m.previousFiles()) {
        checkPath(where + " metadata-log entry", entry.file(), false);
      }
    }

    private void checkManifestList(String list) {
      String where = "manifest list " + list;
      for (GenericRecord manifest : readAvro(where, list)) {
        String path = string(manifest, "manifest_path");
        if (checkPath(where + " manifest_path", path, true)) {
          manifests.add(localPath(path));
          long length = (Long) manifest.get("manifest_length");
          checkSize(where + " manifest_length of " + path, path, length);
        }
      }
    }

    private void checkManifest(String manifest) {
      String where = "manifest " + manifest;
      for (GenericRecord entry : readAvro(where, manifest)) {
        int status = (Integer) entry.get("status");
        boolean live = status != 2;
        GenericRecord file = (GenericRecord) entry.get("data_file");
        String path = string(file, "file_path");
        String label = where + (live ? " live" : " deleted") + " entry " + path;
        boolean ok = checkPath(label + " file_path", path, live);
        if (ok && live) {
          checkSize(label + " file_size_in_bytes", path, (Long) file.get("file_size_in_bytes"));
        }
        String referenced = string(file, "referenced_data_file");
        if (referenced != null) {
          checkPath(label + " referenced_data_file", referenced, live);
        }
        Object contentValue = field(file, "content");
        int content = contentValue == null ? 0 : (Integer) contentValue;
        String format = string(file, "file_format");
        // look inside every live position delete file or DV present on disk, even one whose own
        // path was reported above, so wrong references inside it are reported too
        String local = localPath(path);
        if (live && content == 1 && local != null && new File(local).isFile()) {
          if ("PUFFIN".equalsIgnoreCase(format)) {
            puffinFiles.add(local);
          } else {
            positionDeleteFiles.put(local, format.toUpperCase());
          }
        }
      }
    }

    private void checkPositionDeleteFile(FileIO io, String path, String format) {
      String where = "position delete file " + path;
      Set<String> referenced = new TreeSet<>();
      try (CloseableIterable<Record> rows = readPathPos(io, path, format)) {
        for (Record row : rows) {
          referenced.add(row.get(0).toString());
        }
      } catch (IOException | RuntimeException e) {
        problems.add(where + " cannot be read: " + e);
        return;
      }
      for (String ref : referenced) {
        checkPath(where + " file_path", ref, true);
      }
    }

    private void checkPuffin(FileIO io, String path) {
      String where = "deletion vector file " + path;
      try {
        for (BlobMetadata blob : puffinFooter(io, path).blobs()) {
          String referenced = blob.properties().get("referenced-data-file");
          if (referenced == null) {
            problems.add(where + " has a " + blob.type() + " blob with no referenced-data-file");
          } else {
            checkPath(where + " referenced-data-file", referenced, true);
          }
        }
      } catch (IOException | RuntimeException e) {
        problems.add(where + " cannot be read: " + e);
      }
    }

    /** Checks a path is under the replica, not the source, and (if asked) exists. */
    private boolean checkPath(String label, String path, boolean mustExist) {
      if (path == null) {
        problems.add(label + " is missing");
        return false;
      }
      String local = localPath(path);
      if (local == null) {
        problems.add(label + " is not a local path: " + path);
        return false;
      }
      if (!sameTable && isUnder(local, sourceRoot)) {
        problems.add(label + " points under the source location: " + path);
        return false;
      }
      if (!isUnder(local, replicaRoot)) {
        problems.add(label + " is not under the replica location: " + path);
        return false;
      }
      if (mustExist && !new File(local).isFile()) {
        problems.add(label + " does not exist in the replica: " + path);
        return false;
      }
      return true;
    }

    private void checkSize(String label, String path, long recorded) {
      long actual = new File(localPath(path)).length();
      if (actual != recorded) {
        problems.add(label + " is " + recorded + " but the replica file has " + actual + " bytes");
      }
    }

    private List<String> sourceMentions(String text) {
      List<String> mentions = new ArrayList<>();
      if (sameTable) {
        return mentions;
      }
      String needle = sourceRoot + "/";
      for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
        int end = i;
        while (end < text.length() && "\"\n, ".indexOf(text.charAt(end)) < 0) {
          end++;
        }
        mentions.add(text.substring(i, end));
      }
      return mentions;
    }

    private List<GenericRecord> readAvro(String where, String path) {
      List<GenericRecord> records = new ArrayList<>();
      try (DataFileReader<GenericRecord> reader =
          new DataFileReader<>(new File(localPath(path)), new GenericDatumReader<>())) {
        reader.forEach(records::add);
      } catch (IOException | RuntimeException e) {
        problems.add(where + " cannot be read: " + e);
      }
      return records;
    }
  }

  /**
   * The Puffin footer, read by Iceberg's reader; an LZ4-compressed one (which Iceberg 1.12 cannot
   * decompress) is decompressed first and parsed by Iceberg's footer parser.
   */
  private static FileMetadata puffinFooter(FileIO io, String path) throws IOException {
    byte[] bytes = Files.readAllBytes(Paths.get(localPath(path)));
    if ((Lz4PuffinFooters.flags(bytes) & 1) != 0) {
      return Lz4PuffinFooters.fileMetadata(bytes);
    }
    try (PuffinReader reader = Puffin.read(io.newInputFile(path)).build()) {
      return reader.fileMetadata();
    }
  }

  private static CloseableIterable<Record> readPathPos(FileIO io, String path, String format) {
    if ("PARQUET".equals(format)) {
      return Parquet.read(io.newInputFile(path))
          .project(PATH_POS)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(PATH_POS, fileSchema))
          .build();
    } else if ("AVRO".equals(format)) {
      return Avro.read(io.newInputFile(path))
          .project(PATH_POS)
          .createResolvingReader(PlannedDataReader::create)
          .build();
    } else if ("ORC".equals(format)) {
      return org.apache
          .iceberg
          .orc
          .ORC
          .read(io.newInputFile(path))
          .project(PATH_POS)
          .createReaderFunc(
              fileSchema ->
                  org.apache.iceberg.data.orc.GenericOrcReader.buildReader(PATH_POS, fileSchema))
          .build();
    }
    throw new UnsupportedOperationException("position delete file format " + format);
  }

  private static Object field(GenericRecord record, String name) {
    return record.getSchema().getField(name) == null ? null : record.get(name);
  }

  private static String string(GenericRecord record, String name) {
    Object value = field(record, name);
    return value == null ? null : value.toString();
  }

  /**
   * The local absolute path of {@code pathOrUri} (a plain absolute path or a file: URI in any of
   * its spellings), without a trailing slash; null when it is neither.
   */
  public static String localPath(String pathOrUri) {
    String path;
    if (pathOrUri.startsWith("file:")) {
      try {
        path = new URI(pathOrUri).getPath();
      } catch (Exception e) {
        path = "/" + pathOrUri.substring("file:".length()).replaceFirst("^/+", "");
      }
    } else if (pathOrUri.startsWith("/")) {
      path = pathOrUri;
    } else {
      return null;
    }
    path = path.replaceAll("/+", "/");
    while (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return path;
  }

  static boolean isUnder(String localPath, String root) {
    return localPath.equals(root) || localPath.startsWith(root + "/");
  }
}
