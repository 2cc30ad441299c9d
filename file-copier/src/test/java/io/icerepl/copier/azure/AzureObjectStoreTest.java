package io.icerepl.copier.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.options.BlobParallelUploadOptions;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore.ObjectVersion;
import io.icerepl.localstack.EmbeddedAzurite;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the Azure store does beyond the contract: blocks, copies, conditional deletes, errors. */
class AzureObjectStoreTest {
  private static final int BLOCK = 64 * 1024;
  private static final AtomicInteger CONTAINERS = new AtomicInteger();
  private static EmbeddedAzurite azurite;
  private String container;
  private AzureObjectStore store;

  @BeforeAll
  static void startAzurite() {
    Assumptions.assumeTrue(
        EmbeddedAzurite.available(),
        "Azurite is not installed (.ci/run installs it with npm into local-stack/azurite)");
    azurite = EmbeddedAzurite.start();
  }

  @AfterAll
  static void stopAzurite() {
    if (azurite != null) {
      azurite.close();
    }
  }

  @BeforeEach
  void newContainer() {
    container = "store-" + CONTAINERS.incrementAndGet();
    azurite.createContainer(container);
    store = new AzureObjectStore(access(), BLOCK, ReplicaLayout.defaultLeases());
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  private static AzureAccess access() {
    return AzureAccess.sharedKey(azurite.accountName(), azurite.accountKey())
        .withEndpoint(azurite.endpoint());
  }

  private String abfss(String name) {
    return "abfss://" + container + "@devstoreaccount1.dfs.core.windows.net/t/" + name;
  }

  private String wasbs(String name) {
    return "wasbs://" + container + "@devstoreaccount1.blob.core.windows.net/t/" + name;
  }

  @Test
  void writesSmallerAndLargerThanTheFirstBufferReadBackWithTheirMd5() throws Exception {
    int block = 1024 * 1024;
    try (AzureObjectStore large =
        new AzureObjectStore(access(), block, ReplicaLayout.defaultLeases())) {
      for (int length : new int[] {0, 1, 65_536, 65_537, 300_000, block, block + 1, 2 * block}) {
        byte[] content = pattern(length);
        String path = abfss("data/sized-" + length + ".parquet");

        long written =
            large.write(
                path,
                out -> {
                  for (int at = 0; at < content.length; at += 8192) {
                    out.write(content, at, Math.min(8192, content.length - at));
                  }
                });

        assertThat(written).isEqualTo(length);
        try (InputStream in = large.open(path)) {
          assertThat(in.readAllBytes()).as("%d bytes", length).isEqualTo(content);
        }
        assertThat(large.info(path).orElseThrow().checksums())
            .as("%d bytes", length)
            .containsEntry("MD5", md5(content));
      }
    }
  }

  @Test
  void aWriteOfSeveralBlocksReadsBackWholeAndByRangeWithItsMd5() throws Exception {
    byte[] content = pattern(3 * BLOCK + 12_345);

    long written =
        store.write(
            abfss("data/big.parquet"),
            out -> {
              for (int at = 0; at < content.length; at += 10_000) {
                out.write(content, at, Math.min(10_000, content.length - at));
              }
            });

    assertThat(written).isEqualTo(content.length);
    try (InputStream in = store.open(wasbs("data/big.parquet"))) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
    try (SeekableInput in = store.openSeekable(abfss("data/big.parquet"))) {
      byte[] acrossBlocks = new byte[2 * BLOCK];
      in.readFully(BLOCK / 2, acrossBlocks, 0, acrossBlocks.length);
      assertThat(acrossBlocks)
          .isEqualTo(Arrays.copyOfRange(content, BLOCK / 2, BLOCK / 2 + 2 * BLOCK));
      byte[] tail = new byte[100];
      in.readFully(content.length - 100, tail, 0, 100);
      assertThat(tail).isEqualTo(Arrays.copyOfRange(content, content.length - 100, content.length));
    }
    assertThat(store.info(abfss("data/big.parquet")).orElseThrow().checksums())
        .containsEntry("MD5", md5(content));
  }

  @Test
  void aWriterThatFailsLeavesNoObject() throws IOException {
    String path = abfss("data/failed.parquet");

    assertThatThrownBy(
            () ->
                store.write(
                    path,
                    out -> {
                      out.write(pattern(2 * BLOCK + 1));
                      throw new IOException("rewriter failed");
                    }))
        .hasMessage("rewriter failed");

    assertThat(lengthOf(path)).isEmpty();
  }

  @Test
  void aStreamedCreateOfSeveralBlocksNeverReplaces() throws IOException {
    String path = abfss("metadata/v1.metadata.json");
    byte[] first = pattern(2 * BLOCK + 7);
    byte[] second = "second".getBytes(StandardCharsets.UTF_8);

    assertThat(store.createIfAbsent(path, out -> out.write(first))).isTrue();
    assertThat(store.createIfAbsent(path, out -> out.write(second))).isFalse();
    assertThat(store.createIfAbsent(path, pattern(2 * BLOCK))).isFalse();

    try (InputStream in = store.open(path)) {
      assertThat(in.readAllBytes()).isEqualTo(first);
    }
  }

  @Test
  void aCopyFromAnotherStoreIsStreamedAndCounted(@TempDir Path dir) throws IOException {
    byte[] content = pattern(2 * BLOCK + 99);
    Path source = dir.resolve("part-0.parquet");
    Files.write(source, content);
    LocalObjectStore local = new LocalObjectStore();

    OptionalLong copied =
        store.copyFrom(local, source.toString(), abfss("data/part-0.parquet"), -1);

    assertThat(copied).hasValue(content.length);
    try (InputStream in = store.open(abfss("data/part-0.parquet"))) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
    assertThatThrownBy(
            () ->
                store.copyFrom(
                    local, dir.resolve("absent").toString(), abfss("data/absent.parquet"), -1))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(lengthOf(abfss("data/absent.parquet"))).isEmpty();
  }

  @Test
  void aCopyInsideTheAccountIsServerSideAndIdentical() throws IOException {
    byte[] content = pattern(BLOCK + 5);
    store.write(wasbs("src/part-1.parquet"), out -> out.write(content));

    try (AzureObjectStore other = new AzureObjectStore(access())) {
      assertThat(other.canCopyServerSideFrom(store, wasbs("x"), abfss("y"))).isTrue();
      OptionalLong copied =
          other.copyFrom(store, wasbs("src/part-1.parquet"), abfss("dst/part-1.parquet"), -1);

      assertThat(copied).isEmpty();
    }
    try (InputStream in = store.open(abfss("dst/part-1.parquet"))) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
  }

  @Test
  void aDeleteWithAStaleVersionChangesNothing() throws IOException {
    String lease = abfss("locks/lease");
    ObjectVersion first = store.replaceIf(lease, Optional.empty(), bytes("run-1")).orElseThrow();
    ObjectVersion second = store.replaceIf(lease, Optional.of(first), bytes("run-2")).orElseThrow();

    assertThat(store.deleteIf(lease, first)).isFalse();
    assertThat(store.readVersioned(lease).orElseThrow().version()).isEqualTo(second);

    assertThat(store.deleteIf(lease, second)).isTrue();
    assertThat(store.readVersioned(lease)).isEmpty();
    assertThat(store.deleteIf(lease, second)).isFalse();
  }

  @Test
  void aMissingContainerIsAMissingObjectAndListsNothing() throws IOException {
    String path = "abfss://no-such-container@devstoreaccount1.dfs.core.windows.net/t/x";

    assertThat(store.length(path)).isEmpty();
    assertThatThrownBy(() -> store.open(path).close()).isInstanceOf(NoSuchFileException.class);
    assertThat(store.list("abfss://no-such-container@devstoreaccount1.dfs.core.windows.net/t"))
        .isEmpty();
  }

  @Test
  void aRefusedRequestNamesPathStatusAndCodeButNoSecret() {
    String wrongKey = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXk=";
    try (AzureObjectStore denied =
        new AzureObjectStore(
            AzureAccess.sharedKey(azurite.accountName(), wrongKey)
                .withEndpoint(azurite.endpoint()))) {
      assertThatThrownBy(() -> denied.write(abfss("x"), out -> out.write(1)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(abfss("x"))
          .hasMessageContaining("status 403")
          .hasMessageNotContaining(wrongKey);
    }
  }

  /** As an account with a hierarchical namespace lists a directory: an empty blob so marked. */
  @Test
  void aDirectoryMarkerIsAFolderNotAnObject() throws IOException {
    BlobContainerClient blobs =
        new BlobServiceClientBuilder()
            .connectionString(azurite.connectionString())
            .buildClient()
            .getBlobContainerClient(container);
    blobs
        .getBlobClient("t/data")
        .uploadWithResponse(
            new BlobParallelUploadOptions(BinaryData.fromBytes(new byte[0]))
                .setMetadata(Map.of("hdi_isfolder", "true")),
            null,
            null);
    store.createIfAbsent(abfss("data/part-0.parquet"), bytes("x"));
    store.createIfAbsent(abfss("version-hint.text"), bytes("1"));

    assertThat(store.list(abfss(""))).containsExactly("version-hint.text");
    assertThat(store.listEntries(abfss("")))
        .extracting(e -> e.name())
        .containsExactly("version-hint.text");
    assertThat(store.listFolders(abfss(""))).containsExactly("data");
  }

  private OptionalLong lengthOf(String path) throws IOException {
    return store.length(path);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String md5(byte[] content) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
  }

  private static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 + (i >>> 8));
    }
    return bytes;
  }
}
