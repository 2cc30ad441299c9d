package io.icerepl.app.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.cli.ReplicatorCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replicas side by side ({@code <dir>/dr/a} and {@code <dir>/dr/b}, of {@code <dir>/src/a} and
 * {@code <dir>/src/b}): table A's manifests name files of table B's source. Whatever A names, A's
 * replication and A's retention write and delete only under A's replica: B's replica stays byte for
 * byte as B's replication left it.
 */
class ReplicaPlacementTest {
  private final ReplicaVerifier verifier = new ReplicaVerifier();

  @TempDir Path dir;

  /**
   * A appends one of B's data files, then deletes it: the file lands under A's replica, A's replica
   * reads as A at every snapshot, and A's expiry deletes its own copy, never B's.
   */
  @Test
  void aTableNamingAnotherTablesDataFileNeitherWritesNorDeletesThatTablesReplica()
      throws IOException {
    ScenarioTable b = table("B", "src/b");
    DataFile bFile = b.append(b.row(1, "b1", "x")).get(0);
    b.append(b.row(2, "b2", "y"));
    b.record();
    ScenarioTable a = table("A", "src/a");
    a.append(a.row(10, "a1", "x"));
    a.table().newAppend().appendFile(bFile).commit();
    a.record();
    a.table().newDelete().deleteFile(bFile.location()).commit();
    a.append(a.row(11, "a2", "y"));
    a.record();
    String replicaA = dir.resolve("dr/a").toString();
    String replicaB = dir.resolve("dr/b").toString();

    assertThat(run("replicate", "--source", b.location(), "--target", replicaB)).isZero();
    Map<String, String> bBefore = files(replicaB);
    assertThat(run("replicate", "--source", a.location(), "--target", replicaA)).isZero();

    assertThat(files(replicaB)).as("B's replica after A's replication").isEqualTo(bBefore);
    verifier.verify(a, replicaA);
    assertEveryFileUnder(verifier.load(replicaA), replicaA);

    assertThat(
            run("expire", "--target", replicaA, "--retention-period", "0ms", "--retain-last", "1"))
        .isZero();

    assertThat(files(replicaB)).as("B's replica after A's expiry").isEqualTo(bBefore);
    assertThat(run("verify", "--source", b.location(), "--target", replicaB)).isZero();
    verifier.verify(b, replicaB);
    Table expired = verifier.load(replicaA);
    assertThat(expired.snapshots()).hasSize(1);
    assertThat(Rows.atSnapshot(expired, expired.currentSnapshot().snapshotId()))
        .isEqualTo(a.expectations().snapshotRows().get(a.table().currentSnapshot().snapshotId()));
  }

  /**
   * A "data file" naming B's {@code metadata/v2.metadata.json}: copied under A's replica, never
   * over B's replica's own version file.
   */
  @Test
  void aDataFileNamingAnotherTablesMetadataFileIsNeverWrittenOverThatReplicasMetadata()
      throws IOException {
    ScenarioTable b = table("B", "src/b");
    b.append(b.row(1, "b1", "x"));
    b.append(b.row(2, "b2", "y"));
    b.record();
    Path bVersion = Path.of(b.location(), "metadata", "v2.metadata.json");
    assertThat(bVersion).isRegularFile();
    ScenarioTable a = table("A", "src/a");
    a.append(a.row(10, "a1", "x"));
    DataFile lookalike =
        DataFiles.builder(a.table().spec())
            .withPath(bVersion.toString())
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(Files.size(bVersion))
            .withRecordCount(1)
            .withPartitionPath("category=x")
            .build();
    a.table().newAppend().appendFile(lookalike).commit();
    a.table().newDelete().deleteFile(lookalike.location()).commit();
    String replicaA = dir.resolve("dr/a").toString();
    String replicaB = dir.resolve("dr/b").toString();

    assertThat(run("replicate", "--source", b.location(), "--target", replicaB)).isZero();
    Map<String, String> bBefore = files(replicaB);
    assertThat(run("replicate", "--source", a.location(), "--target", replicaA)).isZero();

    assertThat(files(replicaB)).as("B's replica after A's replication").isEqualTo(bBefore);
    assertThat(run("verify", "--source", b.location(), "--target", replicaB)).isZero();
    assertEveryFileUnder(verifier.load(replicaA), replicaA);
    assertThat(files(replicaA).keySet())
        .as("the look-alike's copy, under A's replica")
        .anyMatch(p -> p.startsWith("data/") && p.endsWith("/b/metadata/v2.metadata.json"));
  }

  /**
   * The user mapped B's data folder onto B's replica for A ({@code --map}): A's copy is B's replica
   * file. A's expiry keeps it, as every file outside A's location: retention deletes only under the
   * replica's own location.
   */
  @Test
  void retentionNeverDeletesAFileOutsideTheReplicasLocation() throws IOException {
    ScenarioTable b = table("B", "src/b");
    DataFile bFile = b.append(b.row(1, "b1", "x")).get(0);
    b.append(b.row(2, "b2", "y"));
    b.record();
    ScenarioTable a = table("A", "src/a");
    a.append(a.row(10, "a1", "x"));
    a.table().newAppend().appendFile(bFile).commit();
    a.table().newDelete().deleteFile(bFile.location()).commit();
    a.append(a.row(11, "a2", "y"));
    a.record();
    String replicaA = dir.resolve("dr/a").toString();
    String replicaB = dir.resolve("dr/b").toString();
    assertThat(run("replicate", "--source", b.location(), "--target", replicaB)).isZero();
    Map<String, String> bBefore = files(replicaB);
    assertThat(
            run(
                "replicate",
                "--source",
                a.location(),
                "--target",
                replicaA,
                "--map",
                b.location() + "/data=" + replicaB + "/data"))
        .isZero();
    assertThat(files(replicaB)).isEqualTo(bBefore);

    assertThat(
            run("expire", "--target", replicaA, "--retention-period", "0ms", "--retain-last", "1"))
        .isZero();

    assertThat(files(replicaB)).as("B's replica after A's expiry").isEqualTo(bBefore);
    assertThat(run("verify", "--source", b.location(), "--target", replicaB)).isZero();
    assertThat(verifier.load(replicaA).snapshots()).hasSize(1);
  }

  /**
   * A local source's {@code data/lnk} is a symbolic link to a folder outside the table, and a
   * manifest names {@code data/lnk/secret}: the path lies under the table's location as written,
   * but the file does not. Refused, naming the file, and nothing of it reaches the replica.
   */
  @Test
  void aSymbolicLinkOutOfTheTableIsNotFollowed() throws IOException {
    Path outside = Files.createDirectories(dir.resolve("outside"));
    byte[] secret = "not the table's to copy".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Files.write(outside.resolve("secret"), secret);
    ScenarioTable a = table("A", "src/a");
    a.append(a.row(10, "a1", "x"));
    Path link = Path.of(a.location(), "data", "lnk");
    Files.createSymbolicLink(link, outside);
    DataFile throughLink =
        DataFiles.builder(a.table().spec())
            .withPath(link.resolve("secret").toString())
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(secret.length)
            .withRecordCount(1)
            .withPartitionPath("category=x")
            .build();
    a.table().newAppend().appendFile(throughLink).commit();
    String replicaA = dir.resolve("dr/a").toString();

    StringWriter out = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true),
            new PrintWriter(out, true),
            "replicate",
            "--source",
            a.location(),
            "--target",
            replicaA);

    assertThat(exit).as(out.toString()).isNotZero();
    assertThat(out.toString())
        .contains("Cannot read file " + link.resolve("secret"))
        .contains("symbolic link");
    String secretDigest = files(outside.toString()).get("secret");
    assertThat(Files.exists(Path.of(replicaA)) ? files(replicaA).values() : List.<String>of())
        .doesNotContain(secretDigest);
  }

  /**
   * A "data file" named {@code <table>/metadata/v9.metadata.json}, holding a real metadata file's
   * bytes, would land on the replica's own version 9 (pre-creating a future version, so its publish
   * would find it existing). Refused as bad input naming the table and the file before anything is
   * copied, the replica left byte for byte; the other table of the backfill replicates.
   */
  @Test
  void aDataFileThatWouldLandOnTheReplicasOwnMetadataIsRefusedAndOtherTablesGoOn()
      throws IOException {
    ScenarioTable bad = table("bad", "wh/ns/bad");
    bad.append(bad.row(1, "b1", "x"));
    bad.record();
    ScenarioTable good = table("good", "wh/ns/good");
    good.append(good.row(10, "g1", "x"));
    good.record();
    Path config = dir.resolve("replicator.yml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "replicator:",
            "  settle-time: 0s",
            "  rules:",
            "    - name: one",
            "      source: '" + dir.resolve("wh") + "'",
            "      targets: [{name: dr, prefix: '" + dir.resolve("dr") + "'}]",
            ""));
    assertThat(run("backfill", "--config", config.toString())).isZero();
    String replicaBad = dir.resolve("dr/ns/bad").toString();
    Map<String, String> before = files(replicaBad);

    Path crafted = Path.of(bad.location(), "metadata", "v9.metadata.json");
    // real metadata bytes, the table's current version's, so a copy would read as a version
    String current =
        ((org.apache.iceberg.HasTableOperations) bad.table())
            .operations()
            .current()
            .metadataFileLocation();
    Files.write(crafted, Files.readAllBytes(Path.of(ReplicaVerifier.localPath(current))));
    bad.table()
        .newAppend()
        .appendFile(
            DataFiles.builder(bad.table().spec())
                .withPath(crafted.toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(Files.size(crafted))
                .withRecordCount(1)
                .withPartitionPath("category=x")
                .build())
        .commit();
    good.append(good.row(11, "g2", "y"));
    good.record();

    StringWriter out = new StringWriter();
    int exit =
        ReplicatorCli.execute(
            new PrintWriter(out, true),
            new PrintWriter(out, true),
            "backfill",
            "--config",
            config.toString());

    assertThat(exit).as(out.toString()).isNotZero();
    assertThat(out.toString())
        .contains("ns/bad")
        .contains("Cannot copy data file " + crafted + " of table ")
        .contains(
            "it would land on "
                + Path.of(replicaBad, "metadata", "v9.metadata.json")
                + ", a name the replica's metadata owns")
        .contains("1 replicated, 0 already up to date, 1 failed");
    assertThat(files(replicaBad)).as("the refused table's replica").isEqualTo(before);
    verifier.verify(good, dir.resolve("dr/ns/good").toString());
  }

  private ScenarioTable table(String name, String relative) {
    return ScenarioTable.create(
        name,
        dir.resolve(relative).toString(),
        Scenario.SCHEMA,
        PartitionSpec.builderFor(Scenario.SCHEMA).identity("category").build(),
        null,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  private static int run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = ReplicatorCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    if (exit != 0) {
      System.err.println(String.join(" ", args) + ":\n" + out + err);
    }
    return exit;
  }

  /** Every data file every snapshot of {@code replica} names lies under {@code location}. */
  private static void assertEveryFileUnder(Table replica, String location) {
    for (Snapshot snapshot : replica.snapshots()) {
      for (DataFile file : snapshot.addedDataFiles(replica.io())) {
        assertThat(ReplicaVerifier.localPath(file.location()))
            .as("data file of snapshot %s", snapshot.snapshotId())
            .startsWith(location + "/");
      }
    }
  }

  /** Every file under {@code location}, by its path below it, with the digest of its bytes. */
  private static Map<String, String> files(String location) {
    Path root = Path.of(location);
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            root.relativize(path).toString(),
            HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path))));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return files;
  }
}
