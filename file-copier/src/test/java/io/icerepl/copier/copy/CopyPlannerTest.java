package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.merge.copyplan.CopyStep;
import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.MissingFileException;
import io.icerepl.merge.merge.MergeResult;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.PathMapping;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The planner streams, from a real table's manifest lists and manifests, each manifest with the
 * files the replica lacks before the manifest lists that name it, decides what the replica holds
 * from the replica itself, and refuses a source file that is missing or of another length than
 * recorded, naming the table, the file and what names it.
 */
class CopyPlannerTest {
  private static final String TABLE = "db.t";

  @TempDir Path dir;

  private final LocalObjectStore store = new LocalObjectStore();
  private IcebergSource source;
  private PathMapping mapping;

  @BeforeEach
  void createSource() {
    source = new IcebergSource(dir);
    mapping = PathMapping.of(source.location(), dir.resolve("replica/t").toString());
  }

  @Test
  void aBackfillPlansEachManifestOnceWithItsFilesBeforeTheManifestListsThatNameIt() {
    List<String> first = source.append(100, 200);
    List<String> firstManifests = source.addedManifests();
    String firstList = source.currentManifestList();
    List<String> second = source.append(300);
    List<String> secondManifests = source.addedManifests();
    String secondList = source.currentManifestList();

    RecordingSink sink = plan(source.backfill(), Optional.empty());

    assertThat(sink.steps).hasSize(4);
    assertThat(manifestOf(sink.steps.get(0))).isEqualTo(mapping.map(firstManifests.get(0)));
    assertThat(targets(sink.steps.get(0))).isEqualTo(mapped(first));
    assertThat(((ManifestListCopy) sink.steps.get(1)).manifestList().target())
        .isEqualTo(mapping.map(firstList));
    assertThat(((ManifestListCopy) sink.steps.get(1)).manifests())
        .containsExactly(mapping.map(firstManifests.get(0)));
    assertThat(manifestOf(sink.steps.get(2))).isEqualTo(mapping.map(secondManifests.get(0)));
    assertThat(targets(sink.steps.get(2))).isEqualTo(mapped(second));
    assertThat(((ManifestListCopy) sink.steps.get(3)).manifestList().target())
        .isEqualTo(mapping.map(secondList));
    assertThat(((ManifestListCopy) sink.steps.get(3)).manifests())
        .containsExactlyInAnyOrder(
            mapping.map(firstManifests.get(0)), mapping.map(secondManifests.get(0)));
    assertThat(sink.checks).hasSize(2).allSatisfy(check -> assertThat(check.join()).isNull());
  }

  @Test
  void aFileTheReplicaHoldsWithItsRecordedLengthIsNotPlannedAgainButOneOfAnotherLengthIs()
      throws IOException {
    List<String> data = source.append(100, 200, 300);
    MergeResult merge = source.backfill();
    IcebergSource.write(mapping.map(data.get(0)), Files.readAllBytes(Path.of(data.get(0))));
    IcebergSource.write(mapping.map(data.get(1)), new byte[10]);

    RecordingSink sink = plan(merge, Optional.empty());

    ManifestCopy manifest = (ManifestCopy) sink.steps.get(0);
    assertThat(targets(manifest)).isEqualTo(mapped(data.subList(1, 3)));
    BitSet entries = new BitSet();
    entries.set(1, 3);
    assertThat(manifest.copiedEntries()).isEqualTo(entries);
  }

  @Test
  void aManifestListAtTheReplicaIsCompleteWithEverythingItNames() {
    source.append(100);
    MergeResult merge = source.backfill();
    IcebergSource.write(mapping.map(source.currentManifestList()), new byte[] {1});

    assertThat(plan(merge, Optional.empty()).steps).isEmpty();
  }

  @Test
  void aDataFileOfAnotherLengthAtTheSourceFailsTheCheckItsManifestWaitsFor() {
    List<String> data = source.append(100, 200);
    MergeResult merge = source.backfill();
    String manifest = source.addedManifests().get(0);
    IcebergSource.write(data.get(1), new byte[50]);

    RecordingSink sink = plan(merge, Optional.empty());

    assertThat(sink.checks).singleElement();
    assertThatThrownBy(() -> sink.checks.get(0).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot replicate table db.t: data file "
                + data.get(1)
                + " is 50 bytes but its manifest "
                + manifest
                + " records 200");
  }

  @Test
  void aManifestMissingAtTheSourceIsRefusedNamingTheManifestListThatNamesIt() throws IOException {
    source.append(100);
    MergeResult merge = source.backfill();
    String manifest = source.addedManifests().get(0);
    Files.delete(Path.of(manifest));

    assertThatThrownBy(() -> plan(merge, Optional.empty()))
        .isInstanceOf(MissingFileException.class)
        .hasMessage(
            "Cannot replicate table db.t: manifest "
                + manifest
                + " named by manifest list "
                + source.currentManifestList()
                + " is missing at the source");
  }

  @Test
  void aLaterCommitRefusesAManifestOfAnotherLengthThanItsManifestListRecords() throws IOException {
    source.append(100);
    MergeResult merge = source.backfill();
    String manifest = source.addedManifests().get(0);
    long recorded = Files.size(Path.of(manifest));
    Files.write(Path.of(manifest), new byte[7], StandardOpenOption.APPEND);

    // a replica that holds metadata already: its manifests are read whole and counted
    assertThatThrownBy(() -> plan(merge, Optional.of(merge.metadata())))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot replicate table db.t: manifest "
                + manifest
                + " is "
                + (recorded + 7)
                + " bytes but its manifest list "
                + source.currentManifestList()
                + " records "
                + recorded);
  }

  private RecordingSink plan(MergeResult merge, Optional<TableMetadata> replica) {
    RecordingSink sink = new RecordingSink();
    new CopyPlanner(store, store).plan(TABLE, merge, replica, mapping, sink);
    return sink;
  }

  private List<String> mapped(List<String> paths) {
    return paths.stream().map(mapping::map).toList();
  }

  private static String manifestOf(CopyStep step) {
    return ((ManifestCopy) step).manifest().target();
  }

  private static List<String> targets(CopyStep step) {
    return ((ManifestCopy) step).files().stream().map(FileCopy::target).toList();
  }

  /** Records the plan's steps as they are streamed; puts nothing, so nothing is in flight. */
  private static final class RecordingSink implements CopySink {
    final List<CopyStep> steps = new ArrayList<>();
    final List<CompletableFuture<Void>> checks = new ArrayList<>();

    @Override
    public boolean inFlight(String targetPath) {
      return false;
    }

    @Override
    public void accept(CopyStep step) {
      steps.add(step);
    }

    @Override
    public void accept(ManifestCopy step, CompletableFuture<Void> check) {
      steps.add(step);
      checks.add(check);
    }
  }
}
