package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.fixtures.IdAppends;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A catalog-style table ({@code <V>-<uuid>.metadata.json}, no version hint) on S3: a file a writer
 * left behind after losing its catalog commit is newer than the table's state; younger than the
 * settle time it is not taken for the head, and once gone it is forgotten.
 */
class SettlingHeadTest {
  private static final Duration SETTLE = Duration.ofSeconds(1);
  private static final String TARGET = "s3://replica/warehouse/ns/t";

  @Test
  void aLosingWritersYoungFileIsNotReplicatedAndTheTableReplicatesNormallyOnceItIsGone()
      throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Warehouse warehouse =
            new S3Warehouse(
                "s3://source/warehouse",
                s3.endpoint(),
                "us-east-1",
                EmbeddedS3.ACCESS_KEY,
                EmbeddedS3.SECRET_KEY);
        S3FileIO io = new S3FileIO();
        S3ObjectStore store =
            S3ObjectStore.create(
                new S3Endpoint(
                    Optional.of(s3.endpoint()),
                    "us-east-1",
                    Optional.of(EmbeddedS3.ACCESS_KEY),
                    Optional.of(EmbeddedS3.SECRET_KEY),
                    true),
                S3StoreSettings.defaults("settling-head-test"),
                S3Resilience.defaults())) {
      s3.createBucket("source");
      s3.createBucket("replica");
      io.initialize(EmbeddedS3FileIO.properties(s3));
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      Table table =
          warehouse.create(
              "ns", "t", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
      IdAppends.append(table, 1);
      IdAppends.append(table, 2);
      String winner = S3Warehouse.metadataFile(table);
      Thread.sleep(SETTLE.toMillis() * 2 + 200);

      // a writer read the same state, wrote the next version and then lost its catalog commit
      TableMetadata current = ((BaseTable) table).operations().current();
      String loser =
          table.location() + "/metadata/00003-" + java.util.UUID.randomUUID() + ".metadata.json";
      TableMetadataParser.write(
          TableMetadata.buildFrom(current)
              .setProperties(Map.of("written-by", "the losing writer"))
              .build(),
          io.newOutputFile(loser));
      long loserWritten = lastModified(store, loser);

      // its event arrives first, within the settle time: the replica takes the table's real head
      replicator(
              store, executor, Clock.fixed(Instant.ofEpochMilli(loserWritten + 1), ZoneOffset.UTC))
          .replicate(table.location(), TARGET, Optional.empty());
      Table replica = replica(io, 1);
      assertThat(replica.properties())
          .containsEntry("replicator.source-metadata-file", name(winner))
          .doesNotContainKey("written-by");
      assertSameRows(table, replica);

      // the losing writer removes its file; the table goes on and its next version is replicated
      io.deleteFile(loser);
      IdAppends.append(table, 3);
      Thread.sleep(SETTLE.toMillis() + 200);
      replicator(store, executor, Clock.systemUTC())
          .replicate(table.location(), TARGET, Optional.empty());
      replica = replica(io, 2);
      assertThat(replica.properties())
          .containsEntry("replicator.source-metadata-file", name(S3Warehouse.metadataFile(table)));
      assertSameRows(table, replica);
    } finally {
      executor.shutdownNow();
    }
  }

  private static TableReplicator replicator(
      ObjectStore store, ExecutorService executor, Clock clock) {
    ReplicationOptions defaults = ReplicationOptions.defaults();
    return TableReplicator.builder(
            store,
            store,
            executor,
            new ReplicationOptions(List.of(), false, defaults.maxMetadataBytes(), 2, SETTLE))
        .clock(clock)
        .build();
  }

  private static long lastModified(ObjectStore store, String path) throws Exception {
    String folder = path.substring(0, path.lastIndexOf('/'));
    return store.listEntries(folder).stream()
        .filter(e -> e.name().equals(name(path)))
        .findFirst()
        .orElseThrow()
        .lastModifiedMs();
  }

  private static Table replica(S3FileIO io, int version) {
    return new BaseTable(
        new StaticTableOperations(TARGET + "/metadata/v" + version + ".metadata.json", io),
        "replica");
  }

  private static void assertSameRows(Table source, Table replica) {
    for (Snapshot snapshot : replica.snapshots()) {
      assertThat(SourceTable.rows(replica, snapshot.snapshotId()))
          .isEqualTo(SourceTable.rows(source, snapshot.snapshotId()));
    }
    assertThat(replica.currentSnapshot().snapshotId())
        .isEqualTo(source.currentSnapshot().snapshotId());
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
