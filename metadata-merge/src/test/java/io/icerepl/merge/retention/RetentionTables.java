package io.icerepl.merge.retention;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;

/**
 * Real Iceberg tables for reachability tests, and the bridge to this project's metadata: the
 * table's current metadata JSON as "before", the same JSON without the expired snapshots as
 * "after". Data and delete files named in manifests do not exist; manifests and lists do.
 */
final class RetentionTables {

  static {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));

  static final PartitionSpec SPEC = PartitionSpec.unpartitioned();

  /** Opens "file:" paths on the local disk, as a replica's object store would. */
  static final ManifestSource LOCAL = path -> Files.newInputStream(local(path));

  private RetentionTables() {}

  static Table create(Path dir, int formatVersion) {
    return create(dir, formatVersion, Map.of());
  }

  static Table create(Path dir, int formatVersion, Map<String, String> properties) {
    Map<String, String> props = new HashMap<>(properties);
    props.put("format-version", Integer.toString(formatVersion));
    return new HadoopTables(new Configuration())
        .create(SCHEMA, SPEC, props, "file:" + dir.resolve("table"));
  }

  static DataFile data(Table table, String name) {
    return DataFiles.builder(SPEC)
        .withPath(table.location() + "/data/" + name)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1000)
        .withRecordCount(10)
        .build();
  }

  static DeleteFile positionDeletes(Table table, String name) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withPath(table.location() + "/data/" + name)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(500)
        .withRecordCount(3)
        .build();
  }

  static DeleteFile equalityDeletes(Table table, String name) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofEqualityDeletes(1)
        .withPath(table.location() + "/data/" + name)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(300)
        .withRecordCount(2)
        .build();
  }

  /** A v3 deletion vector for {@code target}, one blob of the shared Puffin file {@code puffin}. */
  static DeleteFile deletionVector(Table table, String puffin, DataFile target, long offset) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withFormat(FileFormat.PUFFIN)
        .withPath(table.location() + "/data/" + puffin)
        .withFileSizeInBytes(400)
        .withRecordCount(1)
        .withReferencedDataFile(target.location())
        .withContentOffset(offset)
        .withContentSizeInBytes(40)
        .build();
  }

  static List<Long> snapshotIds(Table table) {
    List<Long> ids = new ArrayList<>();
    table.snapshots().forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }

  static Path local(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  // ---------------------------------------------------------------- this project's metadata

  /** The table's current metadata file, read with this project's parser. */
  static TableMetadata metadata(Table table) {
    String file = ((HasTableOperations) table).operations().refresh().metadataFileLocation();
    try {
      return TableMetadataParser.read(Files.readAllBytes(local(file)), file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code before} without the given snapshots, as the replica's retention would publish it: their
   * snapshot-log entries, statistics, and the refs pointing at them go too.
   */
  static TableMetadata without(TableMetadata before, Collection<Long> ids) {
    ObjectNode json = before.copyOfJson();
    removeWhere(json.get("snapshots"), e -> ids.contains(e.get("snapshot-id").asLong()));
    removeWhere(json.get("snapshot-log"), e -> ids.contains(e.get("snapshot-id").asLong()));
    removeWhere(json.get("statistics"), e -> ids.contains(e.get("snapshot-id").asLong()));
    removeWhere(json.get("partition-statistics"), e -> ids.contains(e.get("snapshot-id").asLong()));
    JsonNode refs = json.get("refs");
    if (refs != null) {
      List<String> dropped = new ArrayList<>();
      refs.fields()
          .forEachRemaining(
              r -> {
                if (ids.contains(r.getValue().get("snapshot-id").asLong())) {
                  dropped.add(r.getKey());
                }
              });
      ((ObjectNode) refs).remove(dropped);
    }
    return TableMetadataParser.fromJson(json, "after expiring " + ids);
  }

  private static void removeWhere(JsonNode array, java.util.function.Predicate<JsonNode> drop) {
    if (array == null) {
      return;
    }
    for (Iterator<JsonNode> it = ((ArrayNode) array).elements(); it.hasNext(); ) {
      if (drop.test(it.next())) {
        it.remove();
      }
    }
  }

  /** Plans the files expiring {@code ids} from the table's current metadata leaves unreachable. */
  static UnreachableFiles expire(Table table, Collection<Long> ids, int batchSize) {
    TableMetadata before = metadata(table);
    return ReachabilityPlanner.unreachable(
        ReachabilityPlanner.describe(before, ids), without(before, ids), LOCAL, batchSize);
  }

  static UnreachableFiles expire(Table table, Collection<Long> ids) {
    return expire(table, ids, 1000);
  }

  // ---------------------------------------------------------------- an oracle: Iceberg's own
  // reading

  /**
   * Every file the given snapshots reach, read with the Iceberg library: lists, manifests, live
   * files.
   */
  static Set<String> reachable(Table table, Collection<Long> ids) {
    Set<String> paths = new LinkedHashSet<>();
    for (long id : ids) {
      Snapshot snapshot = table.snapshot(id);
      paths.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        paths.add(manifest.path());
        paths.addAll(liveFiles(table, manifest));
      }
    }
    return paths;
  }

  private static List<String> liveFiles(Table table, ManifestFile manifest) {
    List<String> paths = new ArrayList<>();
    try (ManifestReader<? extends ContentFile<?>> reader =
        manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, table.io(), table.specs())
            : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
      for (ContentFile<?> file : reader) {
        paths.add(file.location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return paths;
  }

  /** What the oracle says expiring {@code ids} leaves unreachable (statistics files aside). */
  static Set<String> expectedUnreachable(Table table, Collection<Long> ids) {
    List<Long> retained = new ArrayList<>(snapshotIds(table));
    retained.removeAll(ids);
    Set<String> expected = reachable(table, ids);
    expected.removeAll(reachable(table, retained));
    return expected;
  }

  static String manifestList(Table table, long id) {
    return table.snapshot(id).manifestListLocation();
  }

  static List<String> manifests(Table table, long id) {
    List<String> paths = new ArrayList<>();
    table.snapshot(id).allManifests(table.io()).forEach(m -> paths.add(m.path()));
    return paths;
  }

  static void truncate(String location) {
    try {
      Path path = local(location);
      byte[] bytes = Files.readAllBytes(path);
      Files.write(path, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
