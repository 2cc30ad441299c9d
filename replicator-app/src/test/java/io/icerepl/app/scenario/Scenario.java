package io.icerepl.app.scenario;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The scenarios: each writes a small real source table with the Iceberg library and records its
 * expectations (before anything expires). Every writer returns the recorded table.
 */
public enum Scenario {
  /** Also carries a Puffin table statistics file and a partition statistics file. */
  APPENDS_OVER_IDENTITY_AND_BUCKET_PARTITIONS {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec =
          PartitionSpec.builderFor(SCHEMA).identity("category").bucket("id", 2).build();
      ScenarioTable t = create(location, spec, null, 2);
      t.append(t.row(1, "a", "x"), t.row(2, "b", "x"), t.row(3, "c", "y"));
      t.append(t.row(4, "d", "y"), t.row(5, "e", "z"));
      t.addStatisticsForCurrentSnapshot();
      t.append(t.row(6, "f", "x"), t.row(7, "g", "z"), t.row(8, "h", "z"));
      return recorded(t);
    }
  },

  COLUMN_ADDED_WITHOUT_SNAPSHOT_THEN_APPENDS {
    @Override
    ScenarioTable writeAt(String location) {
      ScenarioTable t = create(location, PartitionSpec.unpartitioned(), null, 2);
      t.append(t.row(1, "a", "x"), t.row(2, "b", "y"));
      t.append(t.row(3, "c", "x"));
      t.table().updateSchema().addColumn("extra", Types.LongType.get()).commit();
      t.append(t.row(4, "d", "x", 40L), t.row(5, "e", "y", null));
      t.append(t.row(6, "f", "z", 60L));
      return recorded(t);
    }
  },

  PARTITION_SPEC_EVOLVED_MID_HISTORY {
    @Override
    ScenarioTable writeAt(String location) {
      ScenarioTable t = create(location, PartitionSpec.unpartitioned(), null, 2);
      t.append(t.row(1, "a", "x"), t.row(2, "b", "y"));
      t.table().updateSpec().addField("category").commit();
      t.append(t.row(3, "c", "x"), t.row(4, "d", "y"));
      t.table()
          .updateSpec()
          .addField(org.apache.iceberg.expressions.Expressions.bucket("id", 3))
          .commit();
      t.append(t.row(5, "e", "x"), t.row(6, "f", "x"), t.row(7, "g", "z"));
      return recorded(t);
    }
  },

  SORT_ORDER_SET_THEN_APPENDS {
    @Override
    ScenarioTable writeAt(String location) {
      ScenarioTable t = create(location, PartitionSpec.unpartitioned(), null, 2);
      t.append(t.row(3, "c", "x"), t.row(1, "a", "y"));
      t.table().replaceSortOrder().asc("category").desc("id").commit();
      t.append(t.row(5, "e", "x"), t.row(4, "d", "x"), t.row(2, "b", "y"));
      t.append(t.row(7, "g", "z"), t.row(6, "f", "z"));
      return recorded(t);
    }
  },

  ROW_LEVEL_DELETES_PARQUET_AVRO_POSITION_AND_EQUALITY {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t = create(location, spec, null, 2);
      DataFile a = t.append(t.row(1, "a", "x"), t.row(2, "b", "x"), t.row(3, "c", "x")).get(0);
      DataFile b = t.append(t.row(4, "d", "x"), t.row(5, "e", "x"), t.row(6, "f", "x")).get(0);
      DataFile c = t.append(t.row(7, "g", "y"), t.row(8, "h", "y"), t.row(9, "i", "y")).get(0);
      // Parquet position deletes referencing ONE data file: file_path lower == upper bound
      t.commitDeletes(t.writePositionDeletes(FileFormat.PARQUET, a, 0));
      // Avro position deletes referencing two data files of the same partition
      Map<DataFile, long[]> ab = new LinkedHashMap<>();
      ab.put(a, new long[] {2});
      ab.put(b, new long[] {1});
      t.commitDeletes(t.writePositionDeletes(FileFormat.AVRO, ab));
      // Avro position deletes referencing one data file
      t.commitDeletes(t.writePositionDeletes(FileFormat.AVRO, c, 2));
      // equality deletes, Parquet and Avro
      t.commitDeletes(t.writeEqualityDeletes(FileFormat.PARQUET, c, "id", 7));
      t.commitDeletes(t.writeEqualityDeletes(FileFormat.AVRO, b, "data", "f"));
      t.append(t.row(10, "j", "x"), t.row(11, "k", "y"));
      return recorded(t);
    }
  },

  OVERWRITE_AND_COMPACTION_REWRITE {
    @Override
    ScenarioTable writeAt(String location) {
      ScenarioTable t = create(location, PartitionSpec.unpartitioned(), null, 2);
      DataFile f1 = t.append(t.row(1, "a", "x"), t.row(2, "b", "x")).get(0);
      DataFile f2 = t.append(t.row(3, "c", "y")).get(0);
      DataFile f3 = t.append(t.row(4, "d", "z"), t.row(5, "e", "z")).get(0);
      DataFile f1b = t.writeDataFile(List.of(t.row(1, "a2", "x"), t.row(2, "b", "x")));
      t.table().newOverwrite().deleteFile(f1).addFile(f1b).commit();
      DataFile merged =
          t.writeDataFile(
              List.of(
                  t.row(1, "a2", "x"),
                  t.row(2, "b", "x"),
                  t.row(3, "c", "y"),
                  t.row(4, "d", "z"),
                  t.row(5, "e", "z")));
      t.table().newRewrite().deleteFile(f1b).deleteFile(f2).deleteFile(f3).addFile(merged).commit();
      t.append(t.row(6, "f", "x"));
      return recorded(t);
    }
  },

  BRANCHES_AND_TAGS {
    @Override
    ScenarioTable writeAt(String location) {
      ScenarioTable t = create(location, PartitionSpec.unpartitioned(), null, 2);
      t.append(t.row(1, "a", "x"));
      long first = t.table().currentSnapshot().snapshotId();
      t.append(t.row(2, "b", "x"));
      long second = t.table().currentSnapshot().snapshotId();
      t.table().manageSnapshots().createTag("v1", first).commit();
      t.table().manageSnapshots().createBranch("b", second).commit();
      t.appendToBranch("b", t.row(100, "on-b", "x"));
      DataFile onB = t.appendToBranch("b", t.row(101, "on-b2", "y")).get(0);
      t.table().newDelete().deleteFile(onB).toBranch("b").commit();
      t.appendToBranch("b", t.row(102, "on-b3", "y"));
      t.append(t.row(3, "c", "y"));
      t.table()
          .manageSnapshots()
          .createTag("b-head", t.ref("b").snapshotId())
          .createBranch("old", first)
          .commit();
      t.append(t.row(4, "d", "z"));
      return recorded(t);
    }
  },

  V1_TABLE_APPENDS_AND_FILE_DELETE {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t = create(location, spec, null, 1);
      t.append(t.row(1, "a", "x"), t.row(2, "b", "y"));
      List<DataFile> second = t.append(t.row(3, "c", "x"), t.row(4, "d", "z"));
      t.table().newDelete().deleteFile(second.get(0)).commit();
      t.append(t.row(5, "e", "z"));
      return recorded(t);
    }
  },

  V3_DELETION_VECTORS_AND_ROW_LINEAGE {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t = create(location, spec, null, 3);
      DataFile f1 = t.append(t.row(1, "a", "x"), t.row(2, "b", "x"), t.row(3, "c", "x")).get(0);
      List<DataFile> second = t.append(t.row(4, "d", "y"), t.row(5, "e", "y"), t.row(6, "f", "z"));
      Map<DataFile, long[]> dvs = new LinkedHashMap<>();
      dvs.put(f1, new long[] {1});
      dvs.put(second.get(0), new long[] {0, 1});
      t.commitDeletes(t.writeDeletionVectors(dvs));
      DataFile f3 = t.append(t.row(7, "g", "x"), t.row(8, "h", "x")).get(0);
      t.commitDeletes(t.writeDeletionVectors(Map.of(f3, new long[] {0})));
      t.commitDeletes(t.writeEqualityDeletes(FileFormat.PARQUET, second.get(1), "id", 6));
      t.append(t.row(9, "i", "z"));
      return recorded(t);
    }
  },

  /**
   * Data and position deletes in ORC (Iceberg's write.format.default /
   * write.delete.format.default).
   */
  ORC_DATA_AND_POSITION_DELETES {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t =
          create(
              location,
              spec,
              2,
              Map.of(
                  TableProperties.DEFAULT_FILE_FORMAT, "orc",
                  TableProperties.DELETE_DEFAULT_FILE_FORMAT, "orc"));
      DataFile a = t.append(t.row(1, "a", "x"), t.row(2, "b", "x"), t.row(3, "c", "x")).get(0);
      DataFile b = t.append(t.row(4, "d", "x"), t.row(5, "e", "x"), t.row(6, "f", "x")).get(0);
      DataFile c = t.append(t.row(7, "g", "y"), t.row(8, "h", "y"), t.row(9, "i", "y")).get(0);
      // deletes referencing one data file: file_path lower == upper bound
      t.commitDeletes(t.writePositionDeletes(FileFormat.ORC, a, 0));
      // deletes referencing two data files of the same partition
      Map<DataFile, long[]> ab = new LinkedHashMap<>();
      ab.put(a, new long[] {2});
      ab.put(b, new long[] {1});
      t.commitDeletes(t.writePositionDeletes(FileFormat.ORC, ab));
      t.commitDeletes(t.writePositionDeletes(FileFormat.ORC, c, 0, 2));
      t.append(t.row(10, "j", "y"));
      return recorded(t);
    }
  },

  V3_DELETION_VECTORS_WITH_LZ4_COMPRESSED_PUFFIN_FOOTERS {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t = create(location, spec, null, 3);
      DataFile f1 = t.append(t.row(1, "a", "x"), t.row(2, "b", "x"), t.row(3, "c", "x")).get(0);
      List<DataFile> second = t.append(t.row(4, "d", "y"), t.row(5, "e", "y"), t.row(6, "f", "z"));
      Map<DataFile, long[]> dvs = new LinkedHashMap<>();
      dvs.put(f1, new long[] {0, 2});
      dvs.put(second.get(0), new long[] {1});
      t.commitDeletes(t.withLz4CompressedFooters(t.writeDeletionVectors(dvs)));
      DataFile f3 = t.append(t.row(7, "g", "x"), t.row(8, "h", "x")).get(0);
      t.commitDeletes(
          t.withLz4CompressedFooters(t.writeDeletionVectors(Map.of(f3, new long[] {1}))));
      t.append(t.row(9, "i", "z"));
      return recorded(t);
    }
  },

  V2_UPGRADED_TO_V3_MID_HISTORY {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t = create(location, spec, null, 2);
      DataFile f1 = t.append(t.row(1, "a", "x"), t.row(2, "b", "x")).get(0);
      DataFile f2 = t.append(t.row(3, "c", "y"), t.row(4, "d", "y")).get(0);
      t.commitDeletes(t.writePositionDeletes(FileFormat.PARQUET, f1, 1));
      t.commitDeletes(t.writeEqualityDeletes(FileFormat.AVRO, f2, "id", 3));
      t.table().updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
      if (((HasTableOperations) t.table()).operations().current().formatVersion() != 3) {
        throw new IllegalStateException("upgrade to v3 did not happen");
      }
      DataFile f3 = t.append(t.row(5, "e", "x"), t.row(6, "f", "x")).get(0);
      Map<DataFile, long[]> dvs = new LinkedHashMap<>();
      dvs.put(f2, new long[] {1});
      dvs.put(f3, new long[] {0});
      t.commitDeletes(t.writeDeletionVectors(dvs));
      t.append(t.row(7, "g", "z"));
      return recorded(t);
    }
  },

  /**
   * Position deletes and manifests in every codec Iceberg writes them with: Parquet and Avro in
   * zstd (Parquet's default), snappy and gzip, ORC in zstd, snappy and zlib, manifests likewise.
   */
  DELETES_AND_MANIFESTS_IN_ZSTD_SNAPPY_AND_GZIP {
    @Override
    ScenarioTable writeAt(String location) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
      ScenarioTable t = create(location, spec, null, 2);
      DataFile a = t.append(rowsFrom(t, 1)).get(0);
      DataFile b = t.append(rowsFrom(t, 11)).get(0);
      List<List<String>> codecs =
          List.of(List.of("zstd", "zstd"), List.of("snappy", "snappy"), List.of("gzip", "zlib"));
      for (int i = 0; i < codecs.size(); i++) {
        String codec = codecs.get(i).get(0);
        t.table()
            .updateProperties()
            .set(TableProperties.DELETE_PARQUET_COMPRESSION, codec)
            .set(TableProperties.DELETE_AVRO_COMPRESSION, codec)
            .set(TableProperties.DELETE_ORC_COMPRESSION, codecs.get(i).get(1))
            .set(TableProperties.MANIFEST_COMPRESSION, codec)
            .commit();
        t.commitDeletes(t.writePositionDeletes(FileFormat.PARQUET, a, 2 * i));
        t.commitDeletes(t.writePositionDeletes(FileFormat.AVRO, b, 2 * i));
        Map<DataFile, long[]> ab = new LinkedHashMap<>();
        ab.put(a, new long[] {2 * i + 1});
        ab.put(b, new long[] {2 * i + 1});
        t.commitDeletes(t.writePositionDeletes(FileFormat.ORC, ab));
      }
      t.append(t.row(21, "u", "x"));
      return recorded(t);
    }

    private Record[] rowsFrom(ScenarioTable t, int firstId) {
      Record[] rows = new Record[8];
      for (int i = 0; i < rows.length; i++) {
        rows[i] = t.row(firstId + i, "d" + (firstId + i), "x");
      }
      return rows;
    }
  };

  /** Columns: id int (required), data string, category string. */
  public static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.IntegerType.get()),
          optional(2, "data", Types.StringType.get()),
          optional(3, "category", Types.StringType.get()));

  /** Writes the scenario's source table at {@code location} and records it. */
  abstract ScenarioTable writeAt(String location);

  /**
   * Writes the scenario's source table in {@code dir}/source and records it. Odd scenarios use a
   * file: URI location, even ones a plain absolute path, so both forms are exercised.
   */
  public ScenarioTable write(Path dir) {
    Path source = dir.resolve("source").toAbsolutePath();
    String location = ordinal() % 2 == 1 ? source.toUri().toString() : source.toString();
    return writeAt(location);
  }

  ScenarioTable create(String location, PartitionSpec spec, SortOrder order, int formatVersion) {
    return ScenarioTable.create(
        name(),
        location,
        SCHEMA,
        spec,
        order,
        Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)));
  }

  ScenarioTable create(
      String location, PartitionSpec spec, int formatVersion, Map<String, String> properties) {
    Map<String, String> all = new LinkedHashMap<>(properties);
    all.put(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion));
    return ScenarioTable.create(name(), location, SCHEMA, spec, null, all);
  }

  static ScenarioTable recorded(ScenarioTable t) {
    t.record();
    return t;
  }
}
