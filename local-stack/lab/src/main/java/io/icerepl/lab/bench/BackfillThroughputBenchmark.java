package io.icerepl.lab.bench;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationSummary;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Backfill throughput: a new table's first replication over S3 (server-side copies), against a raw
 * parallel CopyObject of the same objects with the same SDK and the same concurrency. The data
 * files are random bytes of realistic sizes registered with valid Iceberg metadata: the copy path
 * never reads them, so they need not be Parquet. The embedded S3 keeps its buckets on disk, so a
 * gigabyte of objects does not live in the heap. Runs alternate (raw, replicator, raw, …) so a
 * warming JIT or a busy neighbour affects both; the figures are medians.
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
   */
  public List<Run> run(Path workDir, int files, int totalMiB, int threads, int rounds)
      throws Exception {
    out.printf(
        "backfill-throughput: %d data files, %d MiB in total, %d threads, %d rounds, S3 on disk under %s%n",
        files, totalMiB, threads, rounds, workDir);
    Path s3Folder = Files.createDirectories(workDir.resolve("s3"));
    List<Run> raw = new ArrayList<>();
    List<Run> replicated = new ArrayList<>();
    try (EmbeddedS3 s3 = EmbeddedS3.start(s3Folder, 0);
        S3Client client = s3.client()) {
      s3.createBucket("source");
      long start = System.nanoTime();
      List<S3Object> objects =
          writeSourceTable(s3, client, files, (long) totalMiB * 1024 * 1024, threads);
      out.printf("source table written in %.1f s%n", (System.nanoTime() - start) / 1e9);
      out.flush();

      S3Endpoint endpoint =
          new S3Endpoint(
              Optional.of(s3.endpoint()),
              "us-east-1",
              Optional.of(EmbeddedS3.ACCESS_KEY),
              Optional.of(EmbeddedS3.SECRET_KEY),
              true);
      Run table = null;
      for (int round = 1; round <= rounds; round++) {
        String rawBucket = "raw-" + round;
        s3.createBucket(rawBucket);
        raw.add(report(rawCopy(client, objects, rawBucket, threads)));
        table = raw.get(raw.size() - 1);
        deleteBucketFolder(s3Folder, rawBucket);

        String replicaBucket = "replica-" + round;
        s3.createBucket(replicaBucket);
        Run run = replicateOnce(endpoint, replicaBucket, threads);
        out.printf("  %s%n", run.kind);
        replicated.add(report(new Run("replicator", table.files, table.bytes, run.seconds)));
        deleteBucketFolder(s3Folder, replicaBucket);
      }
    }

    Run rawMedian = median("raw CopyObject", raw);
    Run replicatorMedian = median("replicator", replicated);
    out.printf(
        "%-22s %8s %10s %10s %10s%n", "median of " + rounds, "files", "MiB", "MiB/s", "files/s");
    for (Run r : List.of(rawMedian, replicatorMedian)) {
      out.printf(
          "%-22s %8d %10.1f %10.1f %10.1f%n",
          r.kind, r.files, r.bytes / MIB, r.mibPerSecond(), r.filesPerSecond());
    }
    out.printf(
        "ratio replicator / raw CopyObject: %.2f (MiB/s), %.2f (files/s)%n",
        replicatorMedian.mibPerSecond() / rawMedian.mibPerSecond(),
        replicatorMedian.filesPerSecond() / rawMedian.filesPerSecond());
    out.flush();
    return List.of(rawMedian, replicatorMedian);
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
   * The replicator's backfill of the table into {@code bucket}: separate stores per side as the
   * service has them, which copy server-side since they share the endpoint and credentials. The
   * figures are then counted over the table's objects, the same as the raw run's.
   */
  private static Run replicateOnce(S3Endpoint endpoint, String bucket, int threads) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (S3ObjectStore source =
            S3ObjectStore.create(
                endpoint, S3StoreSettings.defaults("bench"), S3Resilience.defaults());
        S3ObjectStore target =
            S3ObjectStore.create(
                endpoint, S3StoreSettings.defaults("bench"), S3Resilience.defaults())) {
      ReplicationOptions defaults = ReplicationOptions.defaults();
      ReplicationOptions options =
          new ReplicationOptions(
              defaults.extraPrefixes(), false, defaults.maxMetadataBytes(), threads);
      TableReplicator replicator =
          TableReplicator.builder(source, target, pool, options).clock(Clock.systemUTC()).build();
      long start = System.nanoTime();
      ReplicationSummary summary =
          replicator.replicate(
              "s3://source/" + TABLE_PREFIX,
              "s3://" + bucket + "/" + TABLE_PREFIX,
              Optional.empty());
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

  /**
   * Drops a measured copy from disk: the next round starts from an empty bucket, the disk stays
   * small.
   */
  private static void deleteBucketFolder(Path s3Folder, String bucket) throws IOException {
    Path folder = s3Folder.resolve(bucket);
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
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
