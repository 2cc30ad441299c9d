package io.icerepl.merge.path;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.error.PathOutsideMappingException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class UnmappedPathTest {
  private static final String SOURCE = "s3://a/wh/db/t";
  private static final String TARGET = "s3://b/wh/db/t";

  @Test
  void theMirrorOfTwoLocationsEndingAlikeCoversAFileUnderTheSourceRoot() {
    Optional<MirrorMapping.Inferred> mirror =
        UnmappedPath.mirrorCovering(
            SOURCE, TARGET, List.of(), List.of(), Optional.of("s3://a/ext/data/f.parquet"));

    assertThat(mirror).isPresent();
    assertThat(mirror.get().prefixes())
        .containsExactly(
            new PathMapping.Prefix("s3://a", SourcePrefixes.replicaFolderFor(TARGET, "s3://a")));
    assertThat(mirror.get().commonPath()).isEqualTo("wh/db/t");
  }

  @Test
  void noMirrorCoversAFileOutsideTheSourceRootOrWhenOneIsRecordedOrNoPathIsKnown() {
    List<PathMapping.Prefix> recorded =
        MirrorMapping.infer(SOURCE, TARGET, List.of()).orElseThrow().prefixes();

    assertThat(
            UnmappedPath.mirrorCovering(
                SOURCE, TARGET, List.of(), List.of(), Optional.of("s3://c/data/f.parquet")))
        .isEmpty();
    // a recorded mirror did not cover the path, or it would not be outside the mapping
    assertThat(
            UnmappedPath.mirrorCovering(
                SOURCE, TARGET, List.of(), recorded, Optional.of("s3://a/ext/data/f.parquet")))
        .isEmpty();
    assertThat(UnmappedPath.mirrorCovering(SOURCE, TARGET, List.of(), List.of(), Optional.empty()))
        .isEmpty();
    // locations ending in no common path imply no mirror
    assertThat(
            UnmappedPath.mirrorCovering(
                "s3://a/src/t",
                "s3://b/dst/u",
                List.of(),
                List.of(),
                Optional.of("s3://a/ext/data/f.parquet")))
        .isEmpty();
  }

  @Test
  void aMirrorCutToTheAllowedRootsCoversNoFileOutsideThem() {
    assertThat(
            UnmappedPath.mirrorCovering(
                SOURCE,
                TARGET,
                List.of("s3://a/allowed"),
                List.of(),
                Optional.of("s3://a/ext/data/f.parquet")))
        .isEmpty();
    assertThat(
            UnmappedPath.mirrorCovering(
                SOURCE,
                TARGET,
                List.of("s3://a/allowed"),
                List.of(),
                Optional.of("s3://a/allowed/data/f.parquet")))
        .isPresent();
  }

  @Test
  void theHintNamesTheMirrorThatDidNotCoverThePathAndAMapPairForItsFolder() {
    PathOutsideMappingException outside =
        new PathOutsideMappingException("s3://c/ext/f.parquet", "Cannot map s3://c/ext/f.parquet");

    PathOutsideMappingException hinted = UnmappedPath.withHint(outside, SOURCE, TARGET, List.of());

    assertThat(hinted.path()).contains("s3://c/ext/f.parquet");
    assertThat(hinted.getMessage())
        .isEqualTo(
            "Cannot map s3://c/ext/f.parquet; no version of the table's metadata declares a prefix"
                + " holding it, nor does the mirror s3://a -> "
                + SourcePrefixes.replicaFolderFor(TARGET, "s3://a")
                + ": map one with --map s3://c/ext="
                + SourcePrefixes.replicaFolderFor(TARGET, "s3://c/ext"));
  }

  @Test
  void withoutAPathOrAMirrorTheHintShowsTheFormOfAMapPair() {
    PathOutsideMappingException hinted =
        UnmappedPath.withHint(
            new PathOutsideMappingException("Cannot map"),
            "s3://a/src/t",
            "s3://b/dst/u",
            List.of());

    assertThat(hinted.path()).isEmpty();
    assertThat(hinted.getMessage())
        .isEqualTo(
            "Cannot map; no version of the table's metadata declares a prefix holding it: map one"
                + " with --map <source-prefix>=<target-prefix>");
  }

  @Test
  void underAllowedRootsTheHintNamesThemInsteadOfAMapPair() {
    PathOutsideMappingException hinted =
        UnmappedPath.withHint(
            new PathOutsideMappingException("s3://c/f.parquet", "Cannot map s3://c/f.parquet"),
            SOURCE,
            TARGET,
            List.of("s3://a/wh", "s3://a/ext"));

    assertThat(hinted.getMessage())
        .isEqualTo(
            "Cannot map s3://c/f.parquet; the table may only name files under [s3://a/wh,"
                + " s3://a/ext] and the prefixes its target maps");
  }

  @Test
  void mirrorPairsAreDescribedAsSourceArrowTarget() {
    assertThat(
            UnmappedPath.describe(
                List.of(
                    new PathMapping.Prefix("s3://a/x", "s3://b/t/data/x"),
                    new PathMapping.Prefix("s3://a/y", "s3://b/t/data/y"))))
        .isEqualTo("s3://a/x -> s3://b/t/data/x, s3://a/y -> s3://b/t/data/y");
  }
}
