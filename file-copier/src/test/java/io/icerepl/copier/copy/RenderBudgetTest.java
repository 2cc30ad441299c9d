package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.ManifestCopy;
import io.icerepl.merge.copyplan.ManifestListCopy;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A manifest is rendered ahead of its files only when its replica form can be known then and is
 * small, and what is rendered ahead stays within the budget until given back.
 */
class RenderBudgetTest {
  private static final FileCopy DATA = FileCopy.of(FileKind.DATA, "s/d", "r/d", 10);

  @Test
  void aSmallManifestNamingNoRewrittenFileReservesTwiceItsLength() {
    assertThat(new RenderBudget(1000).reserve(manifest(100, List.of(DATA), Map.of())))
        .isEqualTo(200);
  }

  @Test
  void aManifestOfUnknownLengthOrNamingRewrittenDeleteFilesRendersAfterItsFiles() {
    RenderBudget budget = new RenderBudget(1000);
    FileCopy deletes = FileCopy.of(FileKind.POSITION_DELETE, "s/p", "r/p", 10);

    assertThat(budget.reserve(manifest(-1, List.of(DATA), Map.of()))).isZero();
    assertThat(budget.reserve(manifest(100, List.of(DATA, deletes), Map.of()))).isZero();
    assertThat(budget.reserve(manifest(100, List.of(), Map.of("s/p", deletes)))).isZero();
  }

  @Test
  void aFileOverAQuarterOfTheBudgetIsNotRenderedAhead() {
    RenderBudget budget = new RenderBudget(1000);

    assertThat(budget.reserve(manifest(126, List.of(), Map.of()))).isZero();
    assertThat(budget.reserve(manifest(125, List.of(), Map.of()))).isEqualTo(250);
  }

  @Test
  void whatIsRenderedAheadStaysWithinTheBudgetUntilGivenBack() {
    RenderBudget budget = new RenderBudget(4 * 4 * RenderBudget.LIST_BYTES_PER_MANIFEST);
    ManifestListCopy list = list(3); // (3 + 1) * 1 KiB, a quarter of the budget
    for (int i = 0; i < 4; i++) {
      assertThat(budget.reserve(list)).isEqualTo(4 * RenderBudget.LIST_BYTES_PER_MANIFEST);
    }

    assertThat(budget.reserve(list)).isZero();
    budget.release(4 * RenderBudget.LIST_BYTES_PER_MANIFEST);
    assertThat(budget.reserve(list)).isEqualTo(4 * RenderBudget.LIST_BYTES_PER_MANIFEST);
  }

  private static ManifestCopy manifest(
      long length, List<FileCopy> files, Map<String, FileCopy> rewrittenElsewhere) {
    BitSet entries = new BitSet();
    entries.set(0, files.size());
    return new ManifestCopy(
        FileCopy.of(FileKind.MANIFEST, "s/m.avro", "r/m.avro", length),
        files,
        entries,
        List.of(),
        rewrittenElsewhere,
        false);
  }

  private static ManifestListCopy list(int manifests) {
    return new ManifestListCopy(
        FileCopy.of(FileKind.MANIFEST_LIST, "s/snap.avro", "r/snap.avro", -1),
        Collections.nCopies(manifests, "r/m.avro"),
        Map.of());
  }
}
