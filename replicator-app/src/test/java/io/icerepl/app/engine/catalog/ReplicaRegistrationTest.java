package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.ReplicationResult;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.ReplicaRegistrar.Registration;
import io.icerepl.app.scenario.ReplicaVerifier;
import io.icerepl.app.scenario.Scenario;
import io.icerepl.app.scenario.ScenarioExpectations;
import io.icerepl.app.scenario.ScenarioTable;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.error.DivergedReplicaException;
import io.icerepl.merge.merge.ReplicaProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Replicas registered in a real target catalog (JDBC on SQLite, Iceberg's REST catalog server) by
 * {@link TableReplicator} after every run, read back THROUGH the catalog with the Iceberg library.
 */
class ReplicaRegistrationTest {
  private static final TableIdentifier ID = TableIdentifier.of("sales", "orders");
  private static ExecutorService executor;

  private final ReplicaVerifier verifier = new ReplicaVerifier();
  private final CatalogClients clients = new CatalogClients();
  @TempDir Path dir;
  private TargetCatalog target;
  private String replica;

  @BeforeAll
  static void startExecutor() {
    executor = Executors.newFixedThreadPool(4);
  }

  @AfterAll
  static void stopExecutor() {
    executor.shutdownNow();
  }

  @AfterEach
  void closeCatalog() throws Exception {
    clients.close();
    if (target != null) {
      target.close();
    }
  }

  private ScenarioTable start(TargetCatalog.Kind kind) throws Exception {
    target = TargetCatalog.start(kind, dir.resolve("catalog"));
    replica = dir.resolve("replica").toUri().toString();
    return ScenarioTable.create(
        "ORDERS",
        dir.resolve("source").toString(),
        Scenario.SCHEMA,
        PartitionSpec.unpartitioned(),
        null,
        Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  @ParameterizedTest
  @EnumSource(TargetCatalog.Kind.class)
  void theEntryFollowsEveryReplicaCommitAndReadsAsTheSource(TargetCatalog.Kind kind)
      throws Exception {
    ScenarioTable source = start(kind);
    Recording registrar = new Recording(registrar(target.catalog()));

    List<DataFile> first = source.append(source.row(1, "a", "x"), source.row(2, "b", "x"));
    assertRegistered(source, registrar, Registration.REGISTERED);
    source.append(source.row(3, "c", "y"));
    long second = source.table().currentSnapshot().snapshotId();
    assertRegistered(source, registrar, Registration.ADVANCED);
    source.commitDeletes(source.writePositionDeletes(FileFormat.PARQUET, first.get(0), 0));
    assertRegistered(source, registrar, Registration.ADVANCED);
    source.table().updateSchema().addColumn("note", Types.StringType.get()).commit();
    assertRegistered(source, registrar, Registration.ADVANCED);
    source.append(source.row(4, "d", "y", "new column"));
    assertRegistered(source, registrar, Registration.ADVANCED);
    Table table = source.table();
    table.manageSnapshots().createTag("audited", table.currentSnapshot().snapshotId()).commit();
    table.manageSnapshots().createBranch("staging", table.currentSnapshot().snapshotId()).commit();
    assertRegistered(source, registrar, Registration.ADVANCED);
    source.appendToBranch("staging", source.row(5, "e", "z", "staged"));
    assertRegistered(source, registrar, Registration.ADVANCED);
    source.table().manageSnapshots().rollbackTo(second).commit();
    assertRegistered(source, registrar, Registration.ADVANCED);
    source.append(source.row(6, "f", "x", "after rollback"));
    assertRegistered(source, registrar, Registration.ADVANCED);

    assertThat(replicate(source, Optional.of(registrar)).summary().versionsApplied()).isZero();
    assertThat(registrar.done).last().isEqualTo(Registration.UNCHANGED);
    if (kind == TargetCatalog.Kind.GLUE) {
      LoopbackGlue glue = target.glue();
      // every move is guarded by the version the table was read at, and leaves Glue's readers the
      // read-only mark and the file before
      assertThat(glue.updates)
          .hasSizeGreaterThanOrEqualTo(8)
          .allSatisfy(update -> assertThat(update.path("VersionId").asText()).isNotEmpty());
      assertThat(glue.errors).doesNotContain("UpdateTable ConcurrentModificationException");
      Map<String, String> parameters = glue.parameters("sales", "orders");
      assertThat(parameters)
          .containsEntry(ReplicaProperties.READ_ONLY, "true")
          .containsEntry("metadata_location", target.entryFile(ID))
          .containsKey("previous_metadata_location");
      assertThat(parameters.get("previous_metadata_location"))
          .isNotEqualTo(parameters.get("metadata_location"))
          .startsWith(replica);
    }
  }

  @ParameterizedTest
  @EnumSource(TargetCatalog.Kind.class)
  void aRunAfterACrashBeforeRegistrationAdvancesTheEntry(TargetCatalog.Kind kind) throws Exception {
    ScenarioTable source = start(kind);
    Recording registrar = new Recording(registrar(target.catalog()));
    source.append(source.row(1, "a", "x"));
    assertRegistered(source, registrar, Registration.REGISTERED);
    TableMetadata registered = target.entry(ID);

    source.append(source.row(2, "b", "x"));
    source.append(source.row(3, "c", "y"));
    source.record();
    ReplicationResult crashed = replicate(source, Optional.empty());
    assertThat(crashed.summary().versionsApplied()).isPositive();
    assertThat(target.entry(ID).currentSnapshot().snapshotId())
        .isEqualTo(registered.currentSnapshot().snapshotId());

    ReplicationResult next = replicate(source, Optional.of(registrar));

    assertThat(next.summary().versionsApplied()).isZero();
    assertThat(registrar.done).containsExactly(Registration.REGISTERED, Registration.ADVANCED);
    assertEntryReadsAsSource(source, next);
  }

  @ParameterizedTest
  @EnumSource(TargetCatalog.Kind.class)
  void aTableAUserCreatedAtTheIdentifierIsDivergedAndLeftAlone(TargetCatalog.Kind kind)
      throws Exception {
    ScenarioTable source = start(kind);
    ((SupportsNamespaces) target.catalog()).createNamespace(Namespace.of("sales"));
    target.catalog().createTable(ID, Scenario.SCHEMA);
    String foreign = target.entryFile(ID);

    assertForeignEntryIsLeftAlone(source, foreign);
  }

  @ParameterizedTest
  @EnumSource(TargetCatalog.Kind.class)
  void anEntryRegisteredAtAnotherLocationIsDivergedAndLeftAlone(TargetCatalog.Kind kind)
      throws Exception {
    ScenarioTable source = start(kind);
    source.append(source.row(1, "a", "x"));
    String other = dir.resolve("other-replica").toUri().toString();
    ReplicationResult elsewhere =
        replicator(Optional.empty()).replicateIfChanged(source.location(), other);
    ((SupportsNamespaces) target.catalog()).createNamespace(Namespace.of("sales"));
    target.catalog().registerTable(ID, elsewhere.heads().replica().orElseThrow().file());
    String foreign = target.entryFile(ID);

    assertForeignEntryIsLeftAlone(source, foreign);
  }

  private void assertForeignEntryIsLeftAlone(ScenarioTable source, String foreign) {
    source.append(source.row(2, "b", "y"));
    replicate(source, Optional.empty());
    List<String> replicaFiles = files(replica);

    assertThatThrownBy(() -> replicate(source, Optional.of(registrar(target.catalog()))))
        .isInstanceOf(TableReplicationException.class)
        .cause()
        .isInstanceOf(DivergedReplicaException.class)
        .hasMessageContaining("Cannot register replica ")
        .hasMessageContaining("as sales.orders in catalog target (" + target.spec().type())
        .hasMessageContaining("the entry points at " + foreign);
    assertThat(target.entryFile(ID)).isEqualTo(foreign);
    assertThat(files(replica)).isEqualTo(replicaFiles);
  }

  @ParameterizedTest
  @EnumSource(TargetCatalog.Kind.class)
  void aUserCommitBetweenReadAndMoveMakesTheMoveFailAndIsNotOverwritten(TargetCatalog.Kind kind)
      throws Exception {
    ScenarioTable source = start(kind);
    source.append(source.row(1, "a", "x"));
    source.append(source.row(2, "b", "x"));
    replicate(source, Optional.of(registrar(target.catalog())));
    source.append(source.row(3, "c", "y"));
    Catalog racing =
        target.racing(
            () ->
                target
                    .catalog()
                    .loadTable(ID)
                    .newDelete()
                    .deleteFromRowFilter(Expressions.alwaysTrue())
                    .commit());

    assertThatThrownBy(() -> replicate(source, Optional.of(registrar(racing))))
        .isInstanceOf(TableReplicationException.class)
        .cause()
        .isInstanceOf(DivergedReplicaException.class)
        .hasMessageContaining("as sales.orders in catalog target");
    TableMetadata entry = target.entry(ID);
    assertThat(entry.currentSnapshot().operation()).isEqualTo("delete");
    if (kind == TargetCatalog.Kind.GLUE) {
      // the move lost Glue's optimistic lock to the user's commit, read the entry again and left it
      assertThat(target.glue().errors).contains("UpdateTable ConcurrentModificationException");
    }
    assertThat(verifier.load(replica).currentSnapshot().snapshotId())
        .isEqualTo(source.table().currentSnapshot().snapshotId());
  }

  @ParameterizedTest
  @EnumSource(TargetCatalog.Kind.class)
  void anOlderVersionNeverMovesTheEntryBackward(TargetCatalog.Kind kind) throws Exception {
    ScenarioTable source = start(kind);
    ReplicaRegistrar registrar = registrar(target.catalog());
    source.append(source.row(1, "a", "x"));
    replicate(source, Optional.empty());
    source.append(source.row(2, "b", "x"));
    String v2 = replicate(source, Optional.empty()).heads().replica().orElseThrow().file();
    source.append(source.row(3, "c", "y"));
    String v3 = replicate(source, Optional.empty()).heads().replica().orElseThrow().file();
    assertThat(registrar.register(replica, v3)).isEqualTo(Registration.REGISTERED);
    TableMetadata atV3 = target.entry(ID);

    assertThat(registrar.register(replica, v2)).isEqualTo(Registration.UNCHANGED);

    assertThat(target.entryFile(ID)).isEqualTo(atV3.metadataFileLocation());
    assertThat(target.entry(ID).currentSnapshot().snapshotId())
        .isEqualTo(source.table().currentSnapshot().snapshotId());
  }

  @ParameterizedTest
  @EnumSource(value = TargetCatalog.Kind.class, names = "REST")
  void aCatalogThatIsDownIsNamedAndTheReplicaIsStillPublished(TargetCatalog.Kind kind)
      throws Exception {
    ScenarioTable source = start(kind);
    ReplicaRegistrar registrar = registrar(target.catalog());
    source.append(source.row(1, "a", "x"));
    replicate(source, Optional.of(registrar));
    source.append(source.row(2, "b", "y"));
    target.stopServer();

    assertThatThrownBy(() -> replicate(source, Optional.of(registrar)))
        .isInstanceOf(TableReplicationException.class)
        .cause()
        .isInstanceOf(CatalogException.class)
        .hasMessageContaining("as sales.orders in catalog target (rest http://127.0.0.1:");
    assertThat(verifier.load(replica).currentSnapshot().snapshotId())
        .isEqualTo(source.table().currentSnapshot().snapshotId());
  }

  // ---------------------------------------------------------------- helpers

  private ReplicaRegistrar registrar(Catalog catalog) {
    return CatalogRegistrars.forCatalog(
        target.spec(), catalog, ID, new LocalObjectStore(), clients);
  }

  private TableReplicator replicator(Optional<ReplicaRegistrar> registrar) {
    return TableReplicator.builder(
            new LocalObjectStore(), new LocalObjectStore(), executor, ReplicationOptions.defaults())
        .clock(Clock.systemUTC())
        .progress(CopyProgress.Listener.NONE)
        .catalogs(new TableCatalogs(Optional.empty(), registrar))
        .build();
  }

  private ReplicationResult replicate(ScenarioTable source, Optional<ReplicaRegistrar> registrar) {
    return replicator(registrar).replicateIfChanged(source.location(), replica);
  }

  /** Records the source, replicates with {@code registrar} and checks the entry it left. */
  private void assertRegistered(ScenarioTable source, Recording registrar, Registration expected) {
    source.record();
    ReplicationResult result = replicate(source, Optional.of(registrar));
    assertThat(registrar.done).last().isEqualTo(expected);
    assertEntryReadsAsSource(source, result);
  }

  /**
   * The replica, loaded through the catalog, reads as the source at every snapshot, every ref and
   * every recorded timestamp, and no replica file points into the source. A JDBC or Glue entry
   * names the replica's own published file; a REST entry names the catalog's file of equal content,
   * whose snapshot-log places a rollback at the catalog's commit time, so there time travel is
   * compared at every snapshot's timestamp.
   */
  private void assertEntryReadsAsSource(ScenarioTable source, ReplicationResult result) {
    String published = result.heads().replica().orElseThrow().file();
    Table entry = target.catalog().loadTable(ID);
    Set<Long> snapshotTimes =
        source.expectations().snapshots().values().stream()
            .map(ScenarioExpectations.SnapshotFacts::timestampMillis)
            .collect(Collectors.toSet());
    assertThat(
            verifier.readProblems(
                source.expectations(),
                entry,
                target.kind().namesReplicaFile() ? ts -> true : snapshotTimes::contains))
        .as("what the %s entry reads", target)
        .isEmpty();
    assertThat(verifier.fileProblems(source.location(), replica)).isEmpty();
    TableMetadata metadata = target.entry(ID);
    assertThat(metadata.properties()).containsEntry(ReplicaProperties.READ_ONLY, "true");
    if (target.kind().namesReplicaFile()) {
      assertThat(target.entryFile(ID)).isEqualTo(published);
    } else {
      assertThat(ReplicaVerifier.localPath(target.entryFile(ID)))
          .startsWith(ReplicaVerifier.localPath(replica) + "/metadata/");
      assertThat(metadata.properties().get(ReplicaProperties.COMMIT_TOKEN))
          .isEqualTo(
              result
                  .heads()
                  .replica()
                  .orElseThrow()
                  .metadata()
                  .properties()
                  .get(ReplicaProperties.COMMIT_TOKEN));
    }
  }

  /** Every file under a table location with its size. */
  private static List<String> files(String location) {
    Path root = Path.of(ReplicaVerifier.localPath(location));
    try (Stream<Path> files = Files.walk(root)) {
      Map<String, Long> sizes = new TreeMap<>();
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        sizes.put(root.relativize(file).toString(), Files.size(file));
      }
      return sizes.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The real registrar, remembering what each call did. */
  private static final class Recording implements ReplicaRegistrar {
    private final ReplicaRegistrar registrar;
    private final List<Registration> done = new ArrayList<>();

    Recording(ReplicaRegistrar registrar) {
      this.registrar = registrar;
    }

    @Override
    public Registration register(String replicaLocation, String metadataFile) {
      Registration registration = registrar.register(replicaLocation, metadataFile);
      done.add(registration);
      return registration;
    }

    @Override
    public Registration promote(String replicaLocation, String promotedFile) {
      Registration registration = registrar.promote(replicaLocation, promotedFile);
      done.add(registration);
      return registration;
    }

    @Override
    public java.util.Optional<String> entryFile() {
      return registrar.entryFile();
    }

    @Override
    public String describe() {
      return registrar.describe();
    }
  }
}
