package io.icerepl.app.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.fixtures.RecordingStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backfill asks each side one listing per folder, not a length per file; later commits copy
 * without asking the source. The data files are random bytes registered with Iceberg's own library:
 * the copy path never reads them, so they need not be Parquet.
 */
class BackfillListingTest {
  private static final int FILES = 1000;
  private static ExecutorService executor;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stop() {
    executor.shutdownNow();
  }

  private static void replicate(ObjectStore source, ObjectStore target, String from, String to) {
    TableReplicator.builder(source, target, executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .build()
        .replicate(from, to, Optional.empty());
  }

  /** {@code FILES} data files of random bytes in four appends: four manifests. */
  private Table sourceTable() throws IOException {
    return sourceTable(FILES, 4);
  }

  /** {@code count} data files of random bytes in {@code appends} appends, one manifest each. */
  private Table sourceTable(int count, int appends) throws IOException {
    Path location = dir.resolve("source");
    Table table =
        SourceTable.TABLES.create(
            SourceTable.SCHEMA, PartitionSpec.unpartitioned(), location.toUri().toString());
    Files.createDirectories(location.resolve("data"));
    Random random = new Random(7);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] bytes = new byte[100 + random.nextInt(400)];
      random.nextBytes(bytes);
      Path file = location.resolve("data").resolve(String.format("%04d.parquet", i));
      Files.write(file, bytes);
      files.add(
          DataFiles.builder(table.spec())
              .withPath(file.toUri().toString())
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(bytes.length)
              .withRecordCount(1)
              .build());
    }
    for (int a = 0; a < appends; a++) {
      AppendFiles append = table.newAppend();
      files.subList(a * count / appends, (a + 1) * count / appends).forEach(append::appendFile);
      append.commit();
    }
    return table;
  }

  @Test
  void theRerunOfAnInterruptedBackfillListsEachSideOnceAndAsksNoDataFileItsLength()
      throws IOException {
    Table table = sourceTable();
    String replica = dir.resolve("replica").toUri().toString();
    // a process that dies at the first manifest it writes leaves the data files copied so far
    FaultInjectingStore crashing = new FaultInjectingStore(p -> p.endsWith("-m0.avro"));
    assertThatThrownBy(() -> replicate(new LocalObjectStore(), crashing, table.location(), replica))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining("injected crash");
    Path replicaData = dir.resolve("replica/data");
    List<Path> left;
    try (Stream<Path> files = Files.list(replicaData)) {
      left = files.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
    }
    assertThat(left).hasSizeGreaterThanOrEqualTo(FILES / 4);
    // one file left with the wrong length, as a foreign writer could leave it
    Path wrong = left.get(0);
    Files.write(wrong, new byte[] {1, 2, 3});

    RecordingStore source = new RecordingStore();
    RecordingStore target = new RecordingStore();
    replicate(source, target, table.location(), replica);

    assertThat(dataLengths(target)).as("data file lengths asked of the target").isZero();
    assertThat(dataLengths(source)).as("data file lengths asked of the source").isZero();
    assertThat(target.paths("listLengths")).singleElement().asString().endsWith("/replica/data");
    assertThat(source.paths("listLengths")).singleElement().asString().endsWith("/source/data");
    assertThat(target.paths("copyFrom"))
        .hasSize(FILES - left.size() + 1)
        .anyMatch(p -> p.endsWith("/replica/data/" + wrong.getFileName()));
    assertThat(Files.size(wrong))
        .isEqualTo(Files.size(dir.resolve("source/data").resolve(wrong.getFileName())));
    assertThat(SourceTable.TABLES.load(replica).currentSnapshot().snapshotId())
        .isEqualTo(table.currentSnapshot().snapshotId());
  }

  @Test
  void theSourceListingRunsBesideTheCopiesAndNoManifestIsWrittenBeforeItEnds() throws IOException {
    copiesEveryFileBeforeTheSourceListingEnds(sourceTable(), FILES);
  }

  /**
   * Manifests naming more files than the executor keeps in flight: the second one's files are
   * copied while the first snapshot's manifest list still waits on the listing, instead of after.
   */
  @Test
  void manifestsLargerThanTheFilesInFlightAllCopyWhileTheSourceListingIsHeldBack()
      throws IOException {
    int count = 3000;
    copiesEveryFileBeforeTheSourceListingEnds(sourceTable(count, 2), count);
  }

  private void copiesEveryFileBeforeTheSourceListingEnds(Table table, int count)
      throws IOException {
    String replica = dir.resolve("replica").toUri().toString();
    Queue<String> events = new ConcurrentLinkedQueue<>();
    CountDownLatch copied = new CountDownLatch(count);
    CountDownLatch manifestWritten = new CountDownLatch(1);
    RecordingStore recorded = new RecordingStore();
    ObjectStore target =
        new ForwardingObjectStore(recorded) {
          @Override
          public long write(String path, Writer writer) throws IOException {
            events.add("write " + path);
            if (path.endsWith(".avro")) {
              manifestWritten.countDown();
            }
            return super.write(path, writer);
          }

          @Override
          public OptionalLong copyFrom(
              ObjectStore source, String sourcePath, String targetPath, long recordedLength)
              throws IOException {
            OptionalLong copiedLength =
                super.copyFrom(source, sourcePath, targetPath, recordedLength);
            copied.countDown();
            return copiedLength;
          }
        };
    // the source's data folder lists only once every data file has been copied, and a moment
    // more in which a manifest would be written if it did not wait for that listing: copying
    // must not wait for the listing, and no manifest may be written before it ends
    ObjectStore source =
        new ForwardingObjectStore(new LocalObjectStore()) {
          @Override
          public void listLengths(String folder, LengthConsumer each) throws IOException {
            if (folder.endsWith("/source/data")) {
              awaitCopies(copied, manifestWritten);
              events.add("copies before the source listing: " + recorded.count("copyFrom"));
              super.listLengths(folder, each);
              events.add("source listed");
              return;
            }
            super.listLengths(folder, each);
          }
        };

    replicate(source, target, table.location(), replica);

    List<String> order = List.copyOf(events);
    int listed = order.indexOf("source listed");
    assertThat(listed).as(String.join("\n", order)).isPositive();
    assertThat(order).contains("copies before the source listing: " + count);
    assertThat(order.subList(0, listed))
        .as("replica files written before the source listing ended")
        .noneMatch(e -> e.endsWith(".avro") || e.endsWith(".metadata.json"));
    assertThat(SourceTable.TABLES.load(replica).currentSnapshot().snapshotId())
        .isEqualTo(table.currentSnapshot().snapshotId());
  }

  /** Lengths of data files asked of {@code store}. */
  private static long dataLengths(RecordingStore store) {
    return store.paths("length").stream().filter(p -> p.contains("/data/")).count();
  }

  /**
   * Holds the listing until every file was copied, then two seconds more or until a manifest is
   * written (which must not happen before the listing ends): on latches, so the copies have both
   * cores while the listing waits.
   */
  private static void awaitCopies(CountDownLatch copied, CountDownLatch manifestWritten)
      throws IOException {
    try {
      copied.await(60, TimeUnit.SECONDS);
      manifestWritten.await(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  @Test
  void aLaterCommitCopiesWithoutAskingTheSourceAndNamesAMissingFile() throws IOException {
    Table table = sourceTable();
    String replica = dir.resolve("replica").toUri().toString();
    replicate(new LocalObjectStore(), new LocalObjectStore(), table.location(), replica);
    Path added = dir.resolve("source/data/added.parquet");
    Files.write(added, new byte[] {4, 5, 6, 7});
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath(added.toUri().toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(4)
                .withRecordCount(1)
                .build())
        .commit();

    RecordingStore source = new RecordingStore();
    replicate(source, new LocalObjectStore(), table.location(), replica);
    assertThat(dataLengths(source)).as("data file lengths asked of the source").isZero();
    assertThat(Files.size(dir.resolve("replica/data/added.parquet"))).isEqualTo(4);

    Path gone = dir.resolve("source/data/gone.parquet");
    Files.write(gone, new byte[] {1});
    table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath(gone.toUri().toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(1)
                .withRecordCount(1)
                .build())
        .commit();
    Files.delete(gone);
    assertThatThrownBy(
            () ->
                replicate(
                    new LocalObjectStore(), new LocalObjectStore(), table.location(), replica))
        .isInstanceOf(TableReplicationException.class)
        .hasMessageContaining("Cannot replicate table " + table.location())
        .hasMessageContaining("data file " + gone.toUri() + " named by manifest ")
        .hasMessageContaining("is missing at the source");
    assertThat(dir.resolve("replica/data/gone.parquet")).doesNotExist();
  }
}
