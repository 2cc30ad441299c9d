package io.icerepl.lab.bench;

import io.icerepl.app.service.ReplicatorApplication;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.lab.local.EmbeddedAws;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3EventFileIO;
import io.icerepl.localstack.S3EventMessages;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import io.icerepl.merge.merge.ReplicaProperties;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.TableLayout;
import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Replication lag of the service, end to end: the service runs in-process on the embedded S3 and
 * SQS; a writer commits small appends with the Iceberg library (S3FileIO) and publishes each
 * commit's S3 event as S3 would. A poller reads the replica as a reader would (version hint, then
 * that version's {@code replicator.source-metadata-file}) every {@code pollMs}; a commit's lag is
 * from its metadata file being written to the replica first showing it or a later version. The
 * floor is the writer's own commit time: no replica can show a version sooner than it takes to
 * write one.
 *
 * <p>The writer commits as tables that write {@code <N>-<uuid>.metadata.json} files do: through a
 * catalog ({@link HeadSource#CATALOG}, a JDBC catalog on SQLite whose warehouse is the source
 * bucket; the service's rule reads each head from that catalog), or with the pointer out of the
 * replicator's sight ({@link HeadSource#FOLDER}: the head is found by listing, so every new file
 * waits out the settle time before it is trusted). Through a catalog, each metadata file's event is
 * sent the moment the file is written ({@link S3EventFileIO}), before the catalog's pointer moves,
 * as S3 sends it; otherwise after the commit.
 *
 * <p>Warm-up commits, waited for, come first: the lag of a service that runs for days, not of a JVM
 * that has just started (its first replica commits take several times as long).
 */
public final class LagBenchmark {
  /** Where the service learns the source table's current metadata file. */
  public enum HeadSource {
    CATALOG,
    FOLDER
  }

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "payload", Types.StringType.get()));
  private static final String REPLICA_METADATA = "warehouse/ns/lag/metadata/";
  private static final String WAREHOUSE = "s3://source/warehouse";

  private final PrintWriter out;

  public LagBenchmark(PrintWriter out) {
    this.out = out;
  }

  public void run(int commits, int warmUpCommits, int intervalMs, int pollMs, HeadSource headSource)
      throws Exception {
    out.printf(
        "lag: %d commits of one tiny Parquet file after %d warm-up commits, %d ms between commits,"
            + " replica polled every %d ms, source head read from the %s%n",
        commits,
        warmUpCommits,
        intervalMs,
        pollMs,
        headSource == HeadSource.CATALOG ? "catalog" : "folder");
    out.flush();
    Path dir = Files.createTempDirectory("lag-benchmark");
    try (EmbeddedAws aws = EmbeddedAws.start();
        S3Client s3 = aws.s3().client();
        SqsClient sqs = aws.sqs().client();
        Writer writer = Writer.open(headSource, aws, dir)) {
      Table table = writer.table();
      // a first commit, waited for: the measured ones find the table discovered and backfilled
      table.newFastAppend().appendFile(tinyFile(table, -1)).commit();
      List<String> args = new ArrayList<>(aws.springArguments());
      args.add("--server.port=0");
      args.add("--logging.level.root=WARN");
      args.add("--replicator.rules[0].name=bench");
      args.add("--replicator.rules[0]." + writer.ruleSource());
      args.add("--replicator.rules[0].targets[0].name=replica");
      args.add("--replicator.rules[0].targets[0].prefix=s3://replica/warehouse");
      ConfigurableApplicationContext service =
          new SpringApplication(ReplicatorApplication.class).run(args.toArray(String[]::new));
      try {
        if (warmUpCommits > 0) {
          measure(aws, s3, sqs, writer, warmUpCommits, intervalMs, pollMs, false);
        }
        measure(aws, s3, sqs, writer, commits, intervalMs, pollMs, true);
      } finally {
        service.close();
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  /** The source table's writer, and how the service's rule finds the table's head. */
  private record Writer(Table table, String ruleSource, boolean sendsEvents, AutoCloseable resource)
      implements AutoCloseable {
    static Writer open(HeadSource headSource, EmbeddedAws aws, Path dir) {
      if (headSource == HeadSource.FOLDER) {
        S3Warehouse warehouse =
            new S3Warehouse(
                WAREHOUSE,
                aws.s3().endpoint(),
                EmbeddedS3.REGION.id(),
                EmbeddedS3.ACCESS_KEY,
                EmbeddedS3.SECRET_KEY);
        Table table =
            warehouse.create(
                "ns", "lag", SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
        return new Writer(table, "source=" + WAREHOUSE, false, warehouse);
      }
      String uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
      JdbcCatalog catalog = eventCatalog(aws, uri);
      catalog.createNamespace(Namespace.of("ns"));
      Table table =
          catalog.createTable(
              TableIdentifier.of("ns", "lag"),
              SCHEMA,
              PartitionSpec.unpartitioned(),
              Map.of("format-version", "2"));
      // the service's catalog client takes the source side's S3 settings, as a deployment's does
      return new Writer(
          table,
          "source-catalog=name=bench,type=jdbc,uri=" + uri + ",warehouse=" + WAREHOUSE,
          true,
          catalog);
    }

    @Override
    public void close() throws Exception {
      resource.close();
    }
  }

  /**
   * A JDBC catalog whose warehouse is the source bucket and whose FileIO sends each metadata file's
   * S3 event the moment the file is written, before the catalog's pointer moves, as S3 would.
   */
  static JdbcCatalog eventCatalog(EmbeddedAws aws, String uri) {
    JdbcCatalog catalog = new JdbcCatalog();
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.FILE_IO_IMPL, S3EventFileIO.class.getName());
    properties.put(S3EventFileIO.SQS_ENDPOINT, aws.sqs().endpoint().toString());
    properties.put(S3EventFileIO.QUEUE_URL, aws.queueUrl());
    properties.put(S3FileIOProperties.ENDPOINT, aws.s3().endpoint().toString());
    properties.put(S3FileIOProperties.PATH_STYLE_ACCESS, "true");
    properties.put(S3FileIOProperties.ACCESS_KEY_ID, EmbeddedS3.ACCESS_KEY);
    properties.put(S3FileIOProperties.SECRET_ACCESS_KEY, EmbeddedS3.SECRET_KEY);
    properties.put(AwsClientProperties.CLIENT_REGION, EmbeddedS3.REGION.id());
    properties.put(CatalogProperties.URI, uri);
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, WAREHOUSE);
    catalog.initialize("bench", properties);
    return catalog;
  }

  private void measure(
      EmbeddedAws aws,
      S3Client s3,
      SqsClient sqs,
      Writer writer,
      int commits,
      int intervalMs,
      int pollMs,
      boolean report)
      throws Exception {
    Table table = writer.table();
    String warmUp = fileName(S3Warehouse.metadataFile(table));
    long warmUpDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!warmUp.equals(replicaSourceFile(s3))) {
      if (System.nanoTime() > warmUpDeadline) {
        throw new IllegalStateException(
            "the replica did not show the first commit "
                + warmUp
                + " within 20 s; it shows "
                + replicaSourceFile(s3));
      }
      Thread.sleep(pollMs);
    }

    Map<String, Integer> indexOf = new ConcurrentHashMap<>();
    long[] written = new long[commits];
    long[] shown = new long[commits];
    double[] commitMs = new double[commits];
    AtomicInteger shownUpTo = new AtomicInteger(-1);
    Thread poller =
        new Thread(
            () -> {
              while (shownUpTo.get() < commits - 1) {
                try {
                  String file = replicaSourceFile(s3);
                  long now = System.nanoTime();
                  Integer index = file == null ? null : indexOf.get(file);
                  if (index != null) {
                    for (int i = shownUpTo.get() + 1; i <= index; i++) {
                      shown[i] = now;
                    }
                    shownUpTo.accumulateAndGet(index, Math::max);
                  }
                  Thread.sleep(pollMs);
                } catch (InterruptedException e) {
                  return;
                } catch (RuntimeException e) {
                  // a hint read mid-write or a transient error: the next poll sees it
                }
              }
            },
            "lag-poller");
    poller.start();

    long start = System.nanoTime();
    for (int i = 0; i < commits; i++) {
      DataFile file = tinyFile(table, i);
      long before = System.nanoTime();
      table.newFastAppend().appendFile(file).commit();
      written[i] = System.nanoTime();
      commitMs[i] = (written[i] - before) / 1e6;
      String metadataFile = S3Warehouse.metadataFile(table);
      indexOf.put(fileName(metadataFile), i);
      if (!writer.sendsEvents()) {
        publish(aws, sqs, metadataFile);
      }
      if (intervalMs > 0) {
        Thread.sleep(intervalMs);
      }
    }
    double writerSeconds = (System.nanoTime() - start) / 1e9;
    poller.join(TimeUnit.MINUTES.toMillis(3));
    poller.interrupt();
    if (shownUpTo.get() < commits - 1) {
      throw new IllegalStateException(
          "the replica showed only "
              + (shownUpTo.get() + 1)
              + " of "
              + commits
              + " commits within 3 minutes of the last");
    }
    double replicatedSeconds = (shown[commits - 1] - start) / 1e9;
    if (!report) {
      return;
    }

    double[] lagMs = new double[commits];
    for (int i = 0; i < commits; i++) {
      lagMs[i] = (shown[i] - written[i]) / 1e6;
    }
    Arrays.sort(lagMs);
    Arrays.sort(commitMs);
    out.printf("%-34s %9s %9s %9s %9s%n", "ms", "p50", "p90", "p99", "max");
    out.printf(
        "%-34s %9.0f %9.0f %9.0f %9.0f%n",
        "lag: commit written -> replica",
        pct(lagMs, 50),
        pct(lagMs, 90),
        pct(lagMs, 99),
        lagMs[commits - 1]);
    out.printf(
        "%-34s %9.1f %9.1f %9.1f %9.1f%n",
        "floor: the writer's own commit",
        pct(commitMs, 50),
        pct(commitMs, 90),
        pct(commitMs, 99),
        commitMs[commits - 1]);
    out.printf(
        "writer: %.1f commits/s; replicated: %.1f commits/s (first commit to last shown on the replica)%n",
        commits / writerSeconds, commits / replicatedSeconds);
    out.printf(
        "ratio lag / floor: %.1f (p50), %.1f (p99)%n",
        pct(lagMs, 50) / pct(commitMs, 50), pct(lagMs, 99) / pct(commitMs, 99));
    out.flush();
  }

  /**
   * The replica names its source's metadata file by name, relative to the source's metadata folder.
   */
  static String fileName(String metadataFile) {
    return metadataFile.substring(metadataFile.lastIndexOf('/') + 1);
  }

  /**
   * The source metadata file name the replica's current version holds, as a reader finds it; null
   * before any.
   */
  private static String replicaSourceFile(S3Client s3) {
    return replicaSourceFile(s3, REPLICA_METADATA);
  }

  /** As {@link #replicaSourceFile(S3Client)}, for the replica whose metadata folder is given. */
  static String replicaSourceFile(S3Client s3, String replicaMetadata) {
    try {
      String hint =
          s3.getObjectAsBytes(
                  b ->
                      b.bucket(EmbeddedAws.TARGET_BUCKET)
                          .key(replicaMetadata + TableLayout.VERSION_HINT))
              .asUtf8String()
              .trim();
      String key = replicaMetadata + ReplicaLayout.metadataFileName(Long.parseLong(hint));
      byte[] metadata =
          s3.getObjectAsBytes(b -> b.bucket(EmbeddedAws.TARGET_BUCKET).key(key)).asByteArray();
      return TableMetadataParser.read(metadata, key)
          .properties()
          .get(ReplicaProperties.SOURCE_METADATA_FILE);
    } catch (NoSuchKeyException e) {
      return null;
    }
  }

  private static void publish(EmbeddedAws aws, SqsClient sqs, String metadataFile) {
    String key = metadataFile.substring(("s3://" + EmbeddedAws.SOURCE_BUCKET + "/").length());
    sqs.sendMessage(
        b ->
            b.queueUrl(aws.queueUrl())
                .messageBody(S3EventMessages.objectCreated(EmbeddedAws.SOURCE_BUCKET, key, 1)));
  }

  static DataFile tinyFile(Table table, int seed) {
    GenericRecord record = GenericRecord.create(table.schema());
    Record row = record.copy(Map.of("id", (long) seed, "payload", "commit-" + seed));
    return TableWrites.writeData(table, null, List.of(row));
  }

  static double pct(double[] sorted, int percentile) {
    int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
