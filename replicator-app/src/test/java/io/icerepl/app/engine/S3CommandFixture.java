package io.icerepl.app.engine;

import io.icerepl.app.cli.ReplicatorCli;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.S3Warehouse;
import io.icerepl.localstack.TableWrites;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * What the command-line tests on the embedded S3 share: the credentials the commands' S3 clients
 * take from the default chain, a source table written with the Iceberg library, the command run
 * in-process, and a reader of a replica's metadata file.
 */
public final class S3CommandFixture {
  private S3CommandFixture() {}

  /** One command line run: its exit code and what it printed on each stream. */
  public record Run(int exit, String out, String err) {}

  /** Runs the command line in-process. */
  public static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** Where {@link #replicateToReplicaBucket} puts the replica. */
  public static final String REPLICA = "s3://replica/warehouse/ns/t";

  /**
   * {@code replicate} of {@code table} to {@link #REPLICA} on {@code s3}, settling at once, with
   * the {@code options} given besides.
   */
  public static Run replicateToReplicaBucket(EmbeddedS3 s3, Table table, String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "replicate",
                "--source",
                table.location(),
                "--target",
                REPLICA,
                "--endpoint",
                s3.endpoint().toString(),
                "--path-style",
                "--settle-time",
                "0s"));
    args.addAll(List.of(options));
    return run(args.toArray(String[]::new));
  }

  /** The embedded S3's keys, where the default credentials chain reads them: system properties. */
  public static void setCredentials() {
    System.setProperty("aws.accessKeyId", EmbeddedS3.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", EmbeddedS3.SECRET_KEY);
  }

  public static void clearCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  /** A warehouse on {@code s3} at {@code location}, e.g. {@code s3://source/warehouse}. */
  public static S3Warehouse warehouse(EmbeddedS3 s3, String location) {
    return new S3Warehouse(
        location, s3.endpoint(), "us-east-1", EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY);
  }

  /**
   * Table {@code ns.t} of {@code warehouse}, format v2, {@code id} only: three appends of a row.
   */
  public static Table threeAppends(S3Warehouse warehouse) {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Table table =
        warehouse.create(
            "ns", "t", schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    GenericRecord record = GenericRecord.create(schema);
    for (long i = 0; i < 3; i++) {
      table
          .newAppend()
          .appendFile(
              TableWrites.writeData(table, null, List.<Record>of(record.copy(Map.of("id", i)))))
          .commit();
    }
    return table;
  }

  /** An S3FileIO on {@code s3}; the caller closes it. */
  public static S3FileIO fileIO(EmbeddedS3 s3) {
    S3FileIO io = new S3FileIO();
    io.initialize(properties(s3));
    return io;
  }

  /** The S3FileIO properties that reach {@code s3}, e.g. for a catalog on it. */
  public static Map<String, String> properties(EmbeddedS3 s3) {
    return Map.of(
        "s3.endpoint",
        s3.endpoint().toString(),
        "s3.path-style-access",
        "true",
        "client.region",
        "us-east-1",
        "s3.access-key-id",
        EmbeddedS3.ACCESS_KEY,
        "s3.secret-access-key",
        EmbeddedS3.SECRET_KEY);
  }

  /** The table one metadata file describes, as a reader opening it by path sees it. */
  public static Table load(S3FileIO io, String metadataFile) {
    return new BaseTable(new StaticTableOperations(metadataFile, io), metadataFile);
  }
}
