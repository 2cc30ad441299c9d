package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.icerepl.app.scenario.ReplicaVerifier;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.app.service.RunningService;
import io.icerepl.fixtures.EmbeddedS3FileIO;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.EmbeddedSqs;
import io.icerepl.localstack.S3EventFileIO;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service on the embedded S3 and SQS with a rule whose source is a JDBC catalog (SQLite) over
 * S3. A catalog writer puts its new metadata file, whose S3 event fires, before it moves the
 * catalog's pointer: the event's run finds the catalog naming the version before. With
 * reconciliation an hour away and no later event, the commit still reaches the replica.
 */
class CatalogEventBeforeCommitTest {
  private static final String STATUS = "/api/replications/dr/sales/orders";
  private static final String REPLICA = "s3://replica/wh/sales/orders";

  @TempDir Path dir;

  /**
   * Sends metadata files' events once {@link #armed}, and then holds the writer between putting the
   * file and moving the catalog's pointer until {@link #release} opens.
   */
  public static final class PausingEventFileIO extends S3EventFileIO {
    static volatile boolean armed;
    static final CountDownLatch SENT = new CountDownLatch(1);
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    @Override
    protected void created(String location) {
      if (!armed) {
        return;
      }
      super.created(location);
      SENT.countDown();
      try {
        RELEASE.await(2, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void aCommitWhoseEventArrivesBeforeTheCatalogPointerMovesIsReplicatedWithoutAnotherEvent()
      throws Exception {
    String database = "jdbc:sqlite:" + dir.resolve("source.db");
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        EmbeddedSqs sqs = EmbeddedSqs.start();
        JdbcCatalog writer = new JdbcCatalog();
        S3FileIO io = new S3FileIO()) {
      s3.createBucket("source");
      s3.createBucket("replica");
      String queueUrl = sqs.createQueueWithDeadLetterQueue("events", 5, 5);
      Map<String, String> s3Properties = EmbeddedS3FileIO.properties(s3);
      Map<String, String> writerProperties = new HashMap<>(s3Properties);
      writerProperties.put(CatalogProperties.URI, database);
      writerProperties.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://source/wh");
      writerProperties.put(CatalogProperties.FILE_IO_IMPL, PausingEventFileIO.class.getName());
      writerProperties.put(S3EventFileIO.SQS_ENDPOINT, sqs.endpoint().toString());
      writerProperties.put(S3EventFileIO.QUEUE_URL, queueUrl);
      writer.initialize("prod", writerProperties);
      io.initialize(s3Properties);
      writer.createNamespace(Namespace.of("sales"));
      Table table =
          writer.createTable(
              TableIdentifier.of("sales", "orders"),
              Scenario.SCHEMA,
              PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
              Map.of(TableProperties.FORMAT_VERSION, "2"));
      ScenarioTable source = ScenarioTable.of("orders", table.location(), table);
      source.append(source.row(1, "a", "x"), source.row(2, "b", "y"));

      try (RunningService service = RunningService.start(serviceProperties(database, s3, sqs))) {
        // the first reconciliation pass backfills the replica; the next is an hour away
        await()
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptions()
            .untilAsserted(() -> assertThat(state(service)).isEqualTo("IN_SYNC"));
        String backfilled = service.http.get(STATUS).json().path("lastRunAt").asText();

        PausingEventFileIO.armed = true;
        CompletableFuture<Void> commit =
            CompletableFuture.runAsync(() -> source.append(source.row(3, "c", "x")));
        assertThat(PausingEventFileIO.SENT.await(60, TimeUnit.SECONDS)).isTrue();
        // the event's run has read the catalog, which still names the version before
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(20))
            .until(
                () ->
                    !service.http.get(STATUS).json().path("lastRunAt").asText().equals(backfilled));
        PausingEventFileIO.RELEASE.countDown();
        commit.get(60, TimeUnit.SECONDS);
        long committed = source.table().currentSnapshot().snapshotId();

        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .ignoreExceptions()
            .untilAsserted(
                () -> assertThat(replica(io).currentSnapshot().snapshotId()).isEqualTo(committed));
        source.record();
        Table replica = replica(io);
        List<String> problems = new ReplicaVerifier().readProblems(source.expectations(), replica);
        problems.addAll(TablePaths.outside(replica, io, REPLICA));
        assertThat(problems).isEmpty();
      } finally {
        PausingEventFileIO.RELEASE.countDown();
      }
    }
  }

  private static Map<String, String> serviceProperties(
      String database, EmbeddedS3 s3, EmbeddedSqs sqs) {
    Map<String, String> properties = new HashMap<>();
    properties.put("replicator.rules[0].name", "sales");
    properties.put(
        "replicator.rules[0].source-catalog",
        "name=prod,type=jdbc,uri=" + database + ",warehouse=s3://source/wh");
    properties.put("replicator.rules[0].namespaces[0]", "sales");
    properties.put("replicator.rules[0].targets[0].name", "dr");
    properties.put("replicator.rules[0].targets[0].prefix", "s3://replica/wh");
    for (String side : List.of("source", "target")) {
      properties.put("replicator.s3." + side + ".endpoint", s3.endpoint().toString());
      properties.put("replicator.s3." + side + ".access-key-id", EmbeddedS3.ACCESS_KEY);
      properties.put("replicator.s3." + side + ".secret-access-key", EmbeddedS3.SECRET_KEY);
      properties.put("replicator.s3." + side + ".path-style", "true");
    }
    properties.put("replicator.reconciliation-interval", "PT1H");
    properties.put("replicator.sqs.enabled", "true");
    properties.put("replicator.sqs.queue", "events");
    properties.put("spring.cloud.aws.sqs.endpoint", sqs.endpoint().toString());
    properties.put("spring.cloud.aws.region.static", "us-east-1");
    properties.put("spring.cloud.aws.credentials.access-key", EmbeddedS3.ACCESS_KEY);
    properties.put("spring.cloud.aws.credentials.secret-key", EmbeddedS3.SECRET_KEY);
    return properties;
  }

  private static String state(RunningService service) {
    return service.http.get(STATUS).json().path("state").asText();
  }

  /** The replica as a reader finds it: its version hint, then that version's metadata file. */
  private static Table replica(S3FileIO io) {
    String hint = read(io, REPLICA + "/metadata/version-hint.text").trim();
    return new BaseTable(
        new StaticTableOperations(REPLICA + "/metadata/v" + hint + ".metadata.json", io),
        "replica");
  }

  private static String read(S3FileIO io, String path) {
    try (InputStream in = io.newInputFile(path).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
