package io.icerepl.app.engine.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.replica.LeasedReplica;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.PathOutsideMappingException;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.icerepl.merge.path.PathMapping;
import io.icerepl.merge.path.SourcePrefixes;
import io.icerepl.merge.state.ReplicaState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrefixLedgerTest {
  private static final long MAX = TableMetadataParser.DEFAULT_MAX_METADATA_BYTES;

  private final LocalObjectStore local = new LocalObjectStore();
  private final ReplicaFiles files = new ReplicaFiles(local, MAX);

  @TempDir Path dir;

  private PrefixLedger ledger(List<String> allowed) {
    return new PrefixLedger(local, List.of(), allowed, false, MAX);
  }

  private String uri(String relative) {
    return dir.resolve(relative).toUri().toString();
  }

  /** A source whose data path moved twice, outside its location: its head declares the last. */
  private String sourceWithMovedDataPath() {
    SourceTable source = SourceTable.create(dir.resolve("source"), 2);
    source.table.updateProperties().set("write.data.path", uri("moved")).commit();
    source.append("a", 2);
    source.table.updateProperties().set("write.data.path", uri("elsewhere")).commit();
    source.append("b", 2);
    return ((HasTableOperations) source.table).operations().current().metadataFileLocation();
  }

  @Test
  void aBackfillLearnsThePrefixesOfEveryVersionTheHeadsMetadataLogNames() {
    String headFile = sourceWithMovedDataPath();
    TableMetadata head = ReplicaFiles.readMetadata(local, headFile, MAX);
    String replica = uri("replica");

    PrefixLedger.Learning learning =
        ledger(List.of())
            .learn(replica, ReplicaState.empty(), head, headFile, Optional.empty(), List.of());
    PathMapping mapping = learning.placementOf(head, headFile).mapping();

    assertThat(learning.spelled()).isEqualTo(replica);
    assertThat(mapping.covers(uri("elsewhere/f.parquet"))).isTrue();
    // declared by an earlier version only: the head alone does not map it
    assertThat(mapping.covers(uri("moved/f.parquet"))).isTrue();
    assertThat(
            SourcePrefixes.of(replica, List.of(), List.of(), List.of())
                .learn(head, headFile)
                .mapping()
                .covers(uri("moved/f.parquet")))
        .isFalse();
  }

  @Test
  void learnedPrefixesAreRecordedInTheStateOnceBeforeAFileIsPutUnderThem() throws IOException {
    String headFile = sourceWithMovedDataPath();
    TableMetadata head = ReplicaFiles.readMetadata(local, headFile, MAX);
    String replica = uri("replica");
    PrefixLedger.Learning learning =
        ledger(List.of())
            .learn(replica, ReplicaState.empty(), head, headFile, Optional.empty(), List.of());
    learning.placementOf(head, headFile);

    try (ObjectStore.Lock lock = local.lock(replica)) {
      LeasedReplica leased = new LeasedReplica(local, files, replica, lock);
      ReplicaState recorded = learning.record(leased, leased.state());

      assertThat(recorded.sourcePrefixes()).isNotEmpty();
      assertThat(files.state(replica).sourcePrefixes()).isEqualTo(recorded.sourcePrefixes());
      // nothing new learned: nothing written
      assertThat(learning.record(leased, recorded)).isSameAs(recorded);
    }
  }

  @Test
  void theMirrorIsRecordedOnlyWhenItCoversThePathAndNoneIsRecordedYet() throws IOException {
    String source = uri("a/wh/t");
    String replica = uri("b/wh/t");
    PrefixLedger ledger = ledger(List.of());

    try (ObjectStore.Lock lock = local.lock(replica)) {
      LeasedReplica leased = new LeasedReplica(local, files, replica, lock);
      assertThat(
              ledger.recordMirror(
                  source, source, replica, outside(uri("elsewhere/f.parquet")), leased))
          .isEmpty();
      assertThat(files.state(replica).mirrorPrefixes()).isEmpty();

      Optional<List<PathMapping.Prefix>> mirror =
          ledger.recordMirror(source, source, replica, outside(uri("a/ext/f.parquet")), leased);

      assertThat(mirror).isPresent();
      assertThat(PathMapping.of(mirror.get()).covers(uri("a/ext/f.parquet"))).isTrue();
      assertThat(files.state(replica).mirrorPrefixes()).isEqualTo(mirror.get());
      // a recorded mirror did not cover the next path: nothing more to infer
      assertThat(
              ledger.recordMirror(
                  source, source, replica, outside(uri("a/other/f.parquet")), leased))
          .isEmpty();
    }
  }

  @Test
  void theErrorANonCoveredPathEndsWithNamesTheAllowedRoots() {
    PathOutsideMappingException hinted =
        ledger(List.of(uri("allowed")))
            .withHint(uri("a/wh/t"), uri("b/wh/t"), outside(uri("elsewhere/f.parquet")));

    assertThat(hinted.path()).contains(uri("elsewhere/f.parquet"));
    assertThat(hinted.getMessage())
        .endsWith(
            "; the table may only name files under ["
                + uri("allowed")
                + "] and the prefixes its target maps");
  }

  private static PathOutsideMappingException outside(String path) {
    return new PathOutsideMappingException(path, "Cannot map " + path);
  }
}
