package io.icerepl.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

class S3WarehouseTest {
  @Test
  void tablesAreWrittenToTheEmbeddedS3AsACatalogWould() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start()) {
      s3.createBucket("source");
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      try (S3Warehouse warehouse =
          new S3Warehouse(
              "s3://source/warehouse",
              s3.endpoint(),
              "us-east-1",
              EmbeddedS3.ACCESS_KEY,
              EmbeddedS3.SECRET_KEY)) {
        Table table =
            warehouse.create(
                "ns", "t", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
        GenericRecord record = GenericRecord.create(schema);
        table
            .newAppend()
            .appendFile(
                TableWrites.writeData(table, null, List.<Record>of(record.copy(Map.of("id", 7L)))))
            .commit();

        assertThat(table.location()).isEqualTo("s3://source/warehouse/ns/t");
        try (var rows = IcebergGenerics.read(table).build()) {
          assertThat(rows).extracting(r -> r.getField("id")).containsExactly(7L);
        }
        try (S3Client client = s3.client()) {
          assertThat(
                  client
                      .listObjectsV2(b -> b.bucket("source").prefix("warehouse/ns/t/metadata/"))
                      .contents())
              .extracting(o -> o.key())
              .anyMatch(k -> k.matches("warehouse/ns/t/metadata/00001-.*\\.metadata\\.json"));
        }
      }
    }
  }
}
