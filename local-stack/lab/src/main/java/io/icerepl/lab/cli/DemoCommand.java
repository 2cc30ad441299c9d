package io.icerepl.lab.cli;

import io.icerepl.app.cli.commands.ReplicateCommand;
import io.icerepl.app.cli.options.WorkDirOption;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.localstack.TableWrites;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code demo}: writes a small source table with the Iceberg library (appends over partitions, a
 * schema change, a row-level delete, a tag), replicates it in two rounds, and reads every snapshot
 * of the replica back with the Iceberg library next to the source's.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description =
        "Writes a sample source table, replicates it twice, and compares replica and source.")
final class DemoCommand implements Callable<Integer> {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "category", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DoubleType.get()));

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin WorkDirOption work = new WorkDirOption(Path.of("target", "demo"));

  private long nextId = 1;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    Path base = work.dir().orElseThrow().toAbsolutePath();
    deleteRecursively(base);
    Files.createDirectories(base);
    String sourceLocation = base.resolve("source").toUri().toString();
    String replicaLocation = base.resolve("replica").toUri().toString();
    HadoopTables tables = new HadoopTables(new Configuration());
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
    Table table =
        tables.create(SCHEMA, spec, Map.of(TableProperties.FORMAT_VERSION, "2"), sourceLocation);

    out.println("== source " + sourceLocation);
    append(table, "books", 3);
    append(table, "games", 2);
    out.println("committed: two appends");
    replicate(out, sourceLocation, replicaLocation);

    table.updateSchema().addColumn("note", Types.StringType.get()).commit();
    append(table, "books", 2);
    DataFile games = append(table, "games", 4);
    deletePositions(table, games, 0, 2);
    table.manageSnapshots().createTag("first-load", firstSnapshot(table).snapshotId()).commit();
    out.println("committed: add column 'note', two appends, a position delete, tag 'first-load'");
    replicate(out, sourceLocation, replicaLocation);

    Table replica = tables.load(replicaLocation);
    out.println("== replica " + replicaLocation + " read with the Iceberg library");
    out.printf(
        "%-20s %-10s %12s %12s %s%n",
        "snapshot", "operation", "source rows", "replica rows", "same rows");
    boolean allSame = true;
    for (Snapshot snapshot : table.snapshots()) {
      List<String> sourceRows = rows(table, snapshot.snapshotId());
      List<String> replicaRows = rows(replica, snapshot.snapshotId());
      boolean same = sourceRows.equals(replicaRows);
      allSame &= same;
      out.printf(
          "%-20d %-10s %12d %12d %s%n",
          snapshot.snapshotId(),
          snapshot.operation(),
          sourceRows.size(),
          replicaRows.size(),
          same ? "yes" : "NO");
    }
    out.println("refs on the replica: " + replica.refs().keySet());
    out.println(
        allSame
            ? "replica matches the source at every snapshot"
            : "REPLICA DIFFERS FROM THE SOURCE");
    out.flush();
    return allSame ? 0 : 1;
  }

  private void replicate(PrintWriter out, String sourceLocation, String replicaLocation) {
    ExecutorService executor = Executors.newFixedThreadPool(4);
    try {
      LocalObjectStore store = new LocalObjectStore();
      out.println("-- replicate " + sourceLocation + " -> " + replicaLocation);
      ReplicateCommand.print(
          out,
          TableReplicator.builder(store, store, executor, ReplicationOptions.defaults())
              .clock(Clock.systemUTC())
              .build()
              .replicate(sourceLocation, replicaLocation, Optional.empty()));
    } finally {
      executor.shutdownNow();
    }
  }

  private DataFile append(Table table, String category, int rows) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    GenericRecord record = GenericRecord.create(table.schema());
    partition.partition(record.copy(Map.of("id", 0L, "category", category)));
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      records.add(record.copy(Map.of("id", nextId, "category", category, "amount", nextId * 1.5)));
      nextId++;
    }
    DataFile file = TableWrites.writeData(table, partition, records);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  private static void deletePositions(Table table, DataFile dataFile, long... positions) {
    table
        .newRowDelta()
        .addDeletes(TableWrites.writePositionDeletes(table, dataFile, positions))
        .commit();
  }

  private static Snapshot firstSnapshot(Table table) {
    Snapshot first = null;
    for (Snapshot snapshot : table.snapshots()) {
      if (first == null || snapshot.sequenceNumber() < first.sequenceNumber()) {
        first = snapshot;
      }
    }
    return first;
  }

  private static List<String> rows(Table table, long snapshotId) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.toString()));
    }
    rows.sort(null);
    return rows;
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
