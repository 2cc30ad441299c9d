package io.icerepl.app.engine.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.app.engine.replica.ReplicaHead;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.model.Snapshot;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VersionStepTest {
  private static final long MAX = TableMetadataParser.DEFAULT_MAX_METADATA_BYTES;

  private final LocalObjectStore local = new LocalObjectStore();
  private final PrefixLedger ledger = new PrefixLedger(local, List.of(), List.of(), false, MAX);
  private final VersionStep step = new VersionStep(local, MAX, Clock.systemUTC());

  @TempDir Path dir;

  private String replica;
  private String headFile;
  private TableMetadata head;

  /** Every version the source wrote, oldest first: its creation and two appends. */
  private List<String> versions;

  @BeforeEach
  void writeSource() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.append("a", 2);
    source.append("b", 3);
    headFile = ((HasTableOperations) source.table).operations().current().metadataFileLocation();
    head = ReplicaFiles.readMetadata(local, headFile, MAX);
    versions = new ArrayList<>();
    head.metadataLog().forEach(entry -> versions.add(entry.metadataFile()));
    versions.add(headFile);
    replica = dir.resolve("replica").toUri().toString();
  }

  @Test
  void eachVersionIsMergedOntoTheReplicaAsTheVersionsBeforeItLeftIt() {
    PrefixLedger.Learning prefixes =
        ledger.learn(replica, ReplicaState.empty(), head, headFile, Optional.empty(), versions);
    Optional<ReplicaHead> onto = Optional.empty();
    List<Integer> added = new ArrayList<>();
    for (int i = 0; i < versions.size(); i++) {
      VersionStep.Merged merged =
          step.merge(
                  new VersionStep.Version(
                      versions.get(i), i == versions.size() - 1, headFile, head),
                  ReplicaState.empty(),
                  onto,
                  prefixes)
              .orElseThrow();
      added.add(merged.merge().addedSnapshots().size());
      assertThat(merged.mapping().covers(head.location() + "/data/f.parquet")).isTrue();
      onto =
          Optional.of(
              new ReplicaHead(
                  i + 1, ReplicaLayout.metadataFile(replica, i + 1), merged.merge().metadata()));
    }

    // the creation adds no snapshot, each append one
    assertThat(added).containsExactly(0, 1, 1);
    assertThat(onto.get().metadata().snapshots().stream().map(Snapshot::snapshotId))
        .containsExactlyElementsOf(head.snapshots().stream().map(Snapshot::snapshotId).toList());
    assertThat(onto.get().metadata().location()).isEqualTo(replica);
  }

  @Test
  void aVersionWhoseFileIsGoneIsFoldedIntoTheNextUnlessItIsTheLast() throws IOException {
    String gone = versions.get(1);
    Files.delete(LocalObjectStore.toPath(gone));
    PrefixLedger.Learning prefixes =
        ledger.learn(replica, ReplicaState.empty(), head, headFile, Optional.empty(), versions);

    assertThat(
            step.merge(
                new VersionStep.Version(gone, false, headFile, head),
                ReplicaState.empty(),
                Optional.empty(),
                prefixes))
        .isEmpty();
    assertThatThrownBy(
            () ->
                step.merge(
                    new VersionStep.Version(gone, true, headFile, head),
                    ReplicaState.empty(),
                    Optional.empty(),
                    prefixes))
        .isInstanceOf(MissingFileException.class);
  }
}
