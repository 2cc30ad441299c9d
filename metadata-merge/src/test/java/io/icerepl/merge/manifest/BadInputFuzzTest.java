package io.icerepl.merge.manifest;

import static io.icerepl.merge.manifest.IcebergTables.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.io.FuzzCampaign;
import io.icerepl.merge.manifest.IcebergTables.Fixture;
import io.icerepl.merge.model.TableMetadataParser;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
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

  /**
   * Snappy blocks start with the length they decompress to, a claim of their own: manifests and
   * manifest lists written with that codec.
   */
  @Test
  void mutatedSnappyManifestsAndListsEndInAResultOrASpecificError() throws IOException {
    Fixture fixture = IcebergTables.create(dir, 2);
    ManifestFile manifest = fixture.current().allManifests(fixture.io()).get(0);
    byte[] manifestBytes = snappy(bytes(manifest.path()));
    byte[] list = snappy(bytes(fixture.current().manifestListLocation()));
    assertThat(new String(manifestBytes, StandardCharsets.ISO_8859_1)).contains("snappy");
    assertThat(new String(list, StandardCharsets.ISO_8859_1)).contains("snappy");
    campaign(
        "snappy manifest",
        manifestBytes,
        mutated ->
            ManifestRewriter.rewrite(
                new ByteArrayInputStream(mutated),
                new ByteArrayOutputStream(),
                "m.avro",
                fixture.mapping()::map,
                p -> null));
    campaign(
        "snappy manifest list",
        list,
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

  /** The same Avro file, its header metadata and records, written again with snappy blocks. */
  private static byte[] snappy(byte[] avro) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataFileStream<GenericRecord> in =
            new DataFileStream<>(new ByteArrayInputStream(avro), new GenericDatumReader<>());
        DataFileWriter<GenericRecord> writer =
            new DataFileWriter<>(new GenericDatumWriter<>(in.getSchema()))) {
      for (String key : in.getMetaKeys()) {
        if (!key.startsWith("avro.")) {
          writer.setMeta(key, in.getMeta(key));
        }
      }
      writer.setCodec(CodecFactory.snappyCodec());
      writer.create(in.getSchema(), out);
      for (GenericRecord record : in) {
        writer.append(record);
      }
    }
    return out.toByteArray();
  }

  private static void campaign(String kind, byte[] original, Consumer<byte[]> read) {
    FuzzCampaign.run(kind, original, read);
  }
}
