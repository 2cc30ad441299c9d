package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The service on the embedded S3: tables committed by the Iceberg library (S3FileIO) under {@code
 * s3://source/warehouse}, replicated by rule {@code lake} to target {@code a} under {@code
 * s3://replica/warehouse}, reconciled every second. Create the tables, then start the service.
 */
final class ServiceOnS3 implements AutoCloseable {
  static final Duration PATIENCE = Duration.ofSeconds(60);

  final EmbeddedS3 s3;
  final S3Warehouse warehouse;
  RunningService service;

  ServiceOnS3() {
    s3 = EmbeddedS3.start();
    s3.createBucket("source");
    s3.createBucket("replica");
    warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY);
  }

  /** Starts the service with the rule's settings and {@code extra} properties. */
  RunningService start(Map<String, String> extra) {
    service = RunningService.start(properties(extra));
    return service;
  }

  /** The properties {@link #start} starts the service with. */
  Map<String, String> properties(Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "lake");
    properties.put("replicator.rules[0].source", "s3://source/warehouse");
    properties.put("replicator.rules[0].targets[0].name", "a");
    properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/warehouse");
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    properties.put("replicator.reconciliation-interval", "PT1S");
    properties.putAll(extra);
    return properties;
  }

  /** Waits until the status API shows the table (e.g. {@code /api/replications/a/ns/orders}). */
  void awaitState(String status, String state) {
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () ->
                assertThat(service.http.get(status).json().path("state").asText())
                    .isEqualTo(state));
  }

  /** Commits {@code rows} rows of one category to a partitioned sample table. */
  static void append(Table table, String category, int rows) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", (long) i, "category", category)));
    }
    table.newAppend().appendFile(TableWrites.writeData(table, partition, records)).commit();
  }

  /**
   * Deletes one data file of the replica of {@code table} (e.g. {@code ns/orders}).
   *
   * @return its location
   */
  String deleteOneReplicaDataFile(String table) {
    try (S3Client client = s3.client()) {
      S3Object data =
          client
              .listObjectsV2(b -> b.bucket("replica").prefix("warehouse/" + table + "/data/"))
              .contents()
              .stream()
              .filter(o -> o.key().endsWith(".parquet"))
              .findFirst()
              .orElseThrow();
      client.deleteObject(b -> b.bucket("replica").key(data.key()));
      return "s3://replica/" + data.key();
    }
  }

  /** Every object under {@code prefix} of {@code bucket}, by key, as SHA-256 of its bytes. */
  Map<String, String> objects(String bucket, String prefix) {
    Map<String, String> objects = new java.util.TreeMap<>();
    try (S3Client client = s3.client()) {
      for (S3Object o :
          client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
        byte[] bytes = client.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray();
        try {
          objects.put(
              o.key(),
              java.util.HexFormat.of()
                  .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes)));
        } catch (java.security.NoSuchAlgorithmException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return objects;
  }

  /** A FileIO onto the embedded S3, for reading either side with the Iceberg library. */
  S3FileIO io() {
    S3FileIO io = new S3FileIO();
    io.initialize(EmbeddedS3FileIO.properties(s3));
    return io;
  }

  @Override
  public void close() {
    if (service != null) {
      service.close();
    }
    warehouse.close();
    s3.close();
  }
}
