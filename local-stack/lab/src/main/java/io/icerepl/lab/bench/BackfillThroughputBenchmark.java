package io.icerepl.lab.bench;

import com.azure.storage.blob.BlobContainerClient;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.azure.AzureObjectStore;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Backfill throughput: a new table's first replication over S3 (server-side copies), against a raw
 * parallel CopyObject of the same objects with the same SDK and the same concurrency. The data
 * files are random bytes of realistic sizes registered with valid Iceberg metadata: the copy path
 * never reads them, so they need not be Parquet. The embedded S3 keeps its buckets on disk, so a
 * gigabyte of objects does not live in the heap. Runs alternate (raw, replicator, raw, …) so a
 * warming JIT or a busy neighbour affects both; the figures are medians.
 *
 * <p>Across stores ({@code --target azure}) the replicas go to an {@code abfss://} location on
 * Azurite: the bytes stream through the replicator (GET from S3, staged blocks to Azure), and the
 * baseline does the same with the SDKs directly, a GetObject piped into a BlobClient upload.
 */
public final class BackfillThroughputBenchmark {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final String TABLE_PREFIX = "warehouse/ns/events";
  private static final double MIB = 1024 * 1024;

  private final PrintWriter out;

  public BackfillThroughputBenchmark(PrintWriter out) {
    this.out = out;
  }

  /** Throughput of one run. */
  public record Run(String kind, long files, long bytes, double seconds) {
    double mibPerSecond() {
      return bytes / MIB / seconds;
    }

    double filesPerSecond() {
      return files / seconds;
    }
  }

  /**
   * @param files data files in the source table
   * @param totalMiB their total size; each file is between a quarter and 1¾ of the mean
   * @param threads copy concurrency of both sides (the replicator's parallelism and the raw pool)
   * @param rounds alternations of raw and replicator runs
   * @param target where the replicas go: {@link BenchTarget.Kind#S3} the same embedded S3 (the
   *     copies are server-side), {@link BenchTarget.Kind#AZURE} Azurite (the bytes stream through
   *     this process)
   */
  public List<Run> run(
      Path workDir, int files, int totalMiB, int threads, int rounds, BenchTarget.Kind target)
      throws Exception {
    if (target != BenchTarget.Kind.S3 && target != BenchTarget.Kind.AZURE) {
      throw new IllegalArgumentException(
          "Cannot backfill into " + target.label() + ": s3 or azure");
    }
    boolean azure = target == BenchTarget.Kind.AZURE;
    String rawKind = azure ? "raw GET+upload" : "raw CopyObject";
    out.printf(
        "backfill-throughput: %d data files, %d MiB in total, %d threads, %d rounds, S3 on disk"
            + " under %s, replicas on %s%n",
        files, totalMiB, threads, rounds, workDir, azure ? "Azurite (abfss://)" : "the same S3");
    Path s3Folder = Files.createDirectories(workDir.resolve("s3"));
    List<Run> raw = new ArrayList<>();
    List<Run> replicated = new ArrayList<>();
    try (EmbeddedS3 s3 = EmbeddedS3.start(s3Folder, 0);
        S3Client client = s3.client();
        BenchTarget azurite =
            azure ? BenchTarget.start(BenchTarget.Kind.AZURE, workDir.resolve("azure")) : null) {
      s3.createBucket("source");
      long start = System.nanoTime();
      List<S3Object> objects =
          writeSourceTable(s3, client, files, (long) totalMiB * 1024 * 1024, threads);
      out.printf("source table written in %.1f s%n", (System.nanoTime() - start) / 1e9);
      out.flush();

      Run table = null;
      for (int round = 1; round <= rounds; round++) {
        String rawName = "raw-" + round;
        if (azure) {
          azurite.location(rawName);
          raw.add(report(rawStream(client, objects, azurite.container(rawName), threads)));
          azurite.drop(rawName);
        } else {
          s3.createBucket(rawName);
          raw.add(report(rawCopy(client, objects, rawName, threads)));
          BenchTarget.deleteFolder(s3Folder.resolve(rawName));
        }
        table = raw.get(raw.size() - 1);

        String replicaName = "replica-" + round;
        String root;
        if (azure) {
          root = azurite.location(replicaName);
        } else {
          s3.createBucket(replicaName);
          root = "s3://" + replicaName;
        }
        Run run;
        try (S3ObjectStore source = BenchTarget.s3Store(s3);
            ObjectStoreHandle replica =
                azure
                    ? new ObjectStoreHandle(new AzureObjectStore(azurite.azureAccess()))
                    : new ObjectStoreHandle(BenchTarget.s3Store(s3))) {
          run = replicateOnce(source, replica.store, root, threads);
        }
        out.printf("  %s%n", run.kind);
        replicated.add(report(new Run("replicator", table.files, table.bytes, run.seconds)));
        if (azure) {
          azurite.drop(replicaName);
        } else {
          BenchTarget.deleteFolder(s3Folder.resolve(replicaName));
        }
      }
    }

    Run rawMedian = median(rawKind, raw);
    Run replicatorMedian = median("replicator", replicated);
    out.printf(
        "%-22s %8s %10s %10s %10s %16s%n",
        "median of " + rounds, "files", "MiB", "MiB/s", "files/s", "MiB/s min-max");
    for (List<Run> runs : List.of(raw, replicated)) {
      Run r = runs == raw ? rawMedian : replicatorMedian;
      double min = runs.stream().mapToDouble(Run::mibPerSecond).min().orElseThrow();
      double max = runs.stream().mapToDouble(Run::mibPerSecond).max().orElseThrow();
      out.printf(
          "%-22s %8d %10.1f %10.1f %10.1f %16s%n",
          r.kind,
          r.files,
          r.bytes / MIB,
          r.mibPerSecond(),
          r.filesPerSecond(),
          String.format("%.1f-%.1f", min, max));
    }
    out.printf(
        "ratio replicator / %s: %.2f (MiB/s), %.2f (files/s)%n",
        rawKind,
        replicatorMedian.mibPerSecond() / rawMedian.mibPerSecond(),
        replicatorMedian.filesPerSecond() / rawMedian.filesPerSecond());
    out.flush();
    return List.of(rawMedian, replicatorMedian);
  }

  /** A store closed after one round, whatever its kind. */
  private record ObjectStoreHandle(ObjectStore store) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      if (store instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  private Run report(Run run) {
    out.printf(
        "  %-16s %6d files %8.1f MiB in %6.2f s: %7.1f MiB/s %8.1f files/s%n",
        run.kind,
        run.files,
        run.bytes / MIB,
        run.seconds,
        run.mibPerSecond(),
        run.filesPerSecond());
    out.flush();
    return run;
  }

  /**
   * Random-byte data files put with {@code threads} uploads at once, then registered in four
   * appends (one manifest each) of an Iceberg table written by the Iceberg library.
   *
   * @return every object of the table: the data files put, and the metadata files listed
   */
  private static List<S3Object> writeSourceTable(
      EmbeddedS3 s3, S3Client client, int files, long totalBytes, int threads) throws Exception {
    try (S3Warehouse warehouse =
        new S3Warehouse(
            "s3://source/warehouse",
            s3.endpoint(),
            "us-east-1",
            EmbeddedS3.ACCESS_KEY,
            EmbeddedS3.SECRET_KEY)) {
      Table table =
          warehouse.create(
              "ns", "events", SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
      long mean = totalBytes / files;
      Random sizes = new Random(42);
      List<DataFile> dataFiles = new ArrayList<>();
      List<S3Object> objects = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> puts = new ArrayList<>();
        for (int i = 0; i < files; i++) {
          long size = mean / 4 + (long) (sizes.nextDouble() * mean * 1.5);
          String key = TABLE_PREFIX + "/data/" + String.format("%05d", i) + ".parquet";
          int seed = i;
          puts.add(
              pool.submit(
                  () -> {
                    byte[] bytes = new byte[(int) size];
                    new Random(seed).nextBytes(bytes);
                    client.putObject(
                        b -> b.bucket("source").key(key), RequestBody.fromBytes(bytes));
                  }));
          objects.add(S3Object.builder().key(key).size(size).build());
          dataFiles.add(
              DataFiles.builder(table.spec())
                  .withPath("s3://source/" + key)
                  .withFormat(FileFormat.PARQUET)
                  .withFileSizeInBytes(size)
                  .withRecordCount(size / 16)
                  .build());
        }
        for (Future<?> put : puts) {
          put.get();
        }
      } finally {
        pool.shutdownNow();
      }
      int appends = 4;
      for (int a = 0; a < appends; a++) {
        AppendFiles append = table.newAppend();
        dataFiles
            .subList(a * files / appends, (a + 1) * files / appends)
            .forEach(append::appendFile);
        append.commit();
      }
      // The data folder is not listed: the embedded S3 reads every object of a folder per page.
      client
          .listObjectsV2Paginator(b -> b.bucket("source").prefix(TABLE_PREFIX + "/metadata/"))
          .contents()
          .forEach(objects::add);
      return objects;
    }
  }

  /** Every object of the source table copied with CopyObject, {@code threads} at once. */
  private static Run rawCopy(S3Client client, List<S3Object> objects, String bucket, int threads)
      throws Exception {
    long bytes = objects.stream().mapToLong(S3Object::size).sum();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long start = System.nanoTime();
      List<Future<?>> copies = new ArrayList<>();
      for (S3Object object : objects) {
        copies.add(
            pool.submit(
                () ->
                    client.copyObject(
                        b ->
                            b.sourceBucket("source")
                                .sourceKey(object.key())
                                .destinationBucket(bucket)
                                .destinationKey(object.key()))));
      }
      for (Future<?> copy : copies) {
        copy.get();
      }
      return new Run("raw CopyObject", objects.size(), bytes, (System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Every object of the source table read with GetObject and uploaded to the container with the
   * Azure SDK's BlobClient upload, {@code threads} at once: the bytes pass through this process, as
   * they do through the replicator from S3 to Azure.
   */
  private static Run rawStream(
      S3Client client, List<S3Object> objects, BlobContainerClient container, int threads)
      throws Exception {
    long bytes = objects.stream().mapToLong(S3Object::size).sum();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long start = System.nanoTime();
      List<Future<?>> copies = new ArrayList<>();
      for (S3Object object : objects) {
        copies.add(
            pool.submit(
                () -> {
                  try (ResponseInputStream<GetObjectResponse> in =
                      client.getObject(b -> b.bucket("source").key(object.key()))) {
                    container
                        .getBlobClient(object.key())
                        .upload(in, in.response().contentLength(), true);
                  }
                  return null;
                }));
      }
      for (Future<?> copy : copies) {
        copy.get();
      }
      return new Run("raw GET+upload", objects.size(), bytes, (System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The replicator's backfill of the table under {@code root}: separate stores per side as the
   * service has them, which copy server-side when both are on the same S3, and stream the bytes
   * (GET, then staged blocks) from S3 to Azure. The figures are then counted over the table's
   * objects, the same as the raw run's.
   */
  private static Run replicateOnce(
      ObjectStore source, ObjectStore target, String root, int threads) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      ReplicationOptions defaults = ReplicationOptions.defaults();
      // the benchmark's own table has no writer left: its newest version is settled at once
      // (the default 5 s settle time would leave a table written just before with nothing to do)
      ReplicationOptions options =
          new ReplicationOptions(
              defaults.extraPrefixes(), false, defaults.maxMetadataBytes(), threads, Duration.ZERO);
      TableReplicator replicator =
          TableReplicator.builder(source, target, pool, options).clock(Clock.systemUTC()).build();
      long start = System.nanoTime();
      ReplicationSummary summary =
          replicator.replicate(
              "s3://source/" + TABLE_PREFIX, root + "/" + TABLE_PREFIX, Optional.empty());
      double seconds = (System.nanoTime() - start) / 1e9;
      return new Run(
          "replicator ("
              + summary.filesCopied()
              + " copied, "
              + summary.filesRewritten()
              + " rewritten, "
              + summary.replicaMetadataFiles().size()
              + " commits)",
          0,
          0,
          seconds);
    } finally {
      pool.shutdownNow();
    }
  }

  private static Run median(String kind, List<Run> runs) {
    List<Run> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingDouble(Run::seconds));
    int n = sorted.size();
    double seconds =
        n % 2 == 1
            ? sorted.get(n / 2).seconds
            : (sorted.get(n / 2 - 1).seconds + sorted.get(n / 2).seconds) / 2;
    return new Run(kind, sorted.get(0).files, sorted.get(0).bytes, seconds);
  }
}
