package io.icerepl.app.scenario;

import io.icerepl.localstack.S3Warehouse;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;

/** Source tables on S3 written with the Iceberg library (S3FileIO), recorded like the others. */
final class S3SourceTables {
  private S3SourceTables() {}

  /**
   * Table {@code ns.<name>} of {@code warehouse}, format v2, partitioned by category: two appends,
   * a position delete, a tag, another append; recorded.
   */
  static ScenarioTable ordersWithDeletesAndTag(S3Warehouse warehouse, String name) {
    Table table =
        warehouse.create(
            "ns",
            name,
            Scenario.SCHEMA,
            PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
    ScenarioTable source = ScenarioTable.of(name, table.location(), table);
    DataFile first = source.append(source.row(1, "a", "x"), source.row(2, "b", "x")).get(0);
    source.append(source.row(3, "c", "y"));
    source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, first, 1));
    source
        .table()
        .manageSnapshots()
        .createTag("audited", source.table().currentSnapshot().snapshotId())
        .commit();
    source.append(source.row(4, "d", "z"));
    source.record();
    return source;
  }
}
