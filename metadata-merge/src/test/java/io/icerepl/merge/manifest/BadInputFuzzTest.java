package io.icerepl.merge.manifest;

import static io.icerepl.merge.manifest.IcebergTables.bytes;

import io.icerepl.merge.io.FuzzCampaign;
import io.icerepl.merge.manifest.IcebergTables.Fixture;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ManifestFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@linkplain FuzzCampaign fuzz campaign} of bad input on real manifests, manifest lists and
 * metadata JSON written by Iceberg, read and rewritten as replication does.
 */
class BadInputFuzzTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void mutatedManifestsEndInAResultOrASpecificError(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    for (ManifestFile manifest : fixture.current().allManifests(fixture.io())) {
      byte[] original = bytes(manifest.path());
      campaign(
          "manifest v" + formatVersion,
          original,
          mutated ->
              ManifestRewriter.rewrite(
                  new ByteArrayInputStream(mutated),
                  new ByteArrayOutputStream(),
                  "m.avro",
                  fixture.mapping()::map,
                  p -> null));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void mutatedManifestListsEndInAResultOrASpecificError(int formatVersion) {
    Fixture fixture = IcebergTables.create(dir, formatVersion);
    campaign(
        "manifest list v" + formatVersion,
        bytes(fixture.current().manifestListLocation()),
        mutated ->
            ManifestListRewriter.rewrite(
                new ByteArrayInputStream(mutated),
                new ByteArrayOutputStream(),
                "snap.avro",
                fixture.mapping()::map,
                path -> 1L));
  }

  @Test
  void mutatedMetadataJsonEndsInAResultOrASpecificError() {
    Fixture fixture = IcebergTables.create(dir, 2);
    String file = ((BaseTable) fixture.table()).operations().current().metadataFileLocation();
    campaign(
        "metadata JSON",
        bytes(file),
        mutated ->
            TableMetadataParser.read(
                new ByteArrayInputStream(mutated), "v3.metadata.json", 1 << 20));
  }

  private static void campaign(String kind, byte[] original, Consumer<byte[]> read) {
    FuzzCampaign.run(kind, original, read);
  }
}
