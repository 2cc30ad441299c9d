package io.icerepl.copier.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore.ObjectInfo;
import io.icerepl.copier.store.ObjectStore.ObjectVersion;
import io.icerepl.copier.store.ObjectStore.VersionedObject;
import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What GCS adds to the contract: chunked uploads, copies, conditional deletes, checksums. */
class GcsObjectStoreTest {
  private static final int CHUNK = 256 * 1024;

  /** The methods of {@link Storage} the store called, in order. */
  private final List<String> calls = new CopyOnWriteArrayList<>();

  private Storage storage;
  private GcsObjectStore store;

  @BeforeEach
  void newFake() {
    storage = recording(PreconditionEnforcingStorage.around(fakeStorage()));
    store = new GcsObjectStore(storage, CHUNK, 64 * 1024);
  }

  @Test
  void aStreamedWriteOfSeveralMebibytesReadsBackWithRangedReadsInsideIt() throws IOException {
    byte[] content = pattern(5 * 1024 * 1024 + 123);

    long written =
        store.write(
            "gs://b/t/data/big.parquet",
            out -> {
              for (int at = 0; at < content.length; at += 100_000) {
                out.write(content, at, Math.min(100_000, content.length - at));
              }
            });

    assertThat(written).isEqualTo(content.length);
    assertThat(store.length("gs://b/t/data/big.parquet")).hasValue(content.length);
    try (SeekableInput in = store.openSeekable("gs://b/t/data/big.parquet")) {
      for (int position : new int[] {0, CHUNK - 5, 3 * CHUNK + 17, 4_000_000, content.length - 9}) {
        byte[] read = new byte[9];
        in.readFully(position, read, 0, 9);
        assertThat(read).as("at %d", position).isEqualTo(slice(content, position, 9));
      }
      byte[] large = new byte[300_000];
      in.readFully(1_000_000, large, 0, large.length);
      assertThat(large).isEqualTo(slice(content, 1_000_000, large.length));
    }
    try (InputStream in = store.open("gs://b/t/data/big.parquet")) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
  }

  @Test
  void aCopyFromALocalStoreStreamsAndCountsIt(@TempDir Path dir) throws IOException {
    byte[] content = pattern(700_000);
    Path source = dir.resolve("part-0.parquet");
    Files.write(source, content);

    OptionalLong copied =
        store.copyFrom(
            new LocalObjectStore(), source.toString(), "gs://b/t/data/part-0.parquet", -1);

    assertThat(copied).hasValue(content.length);
    try (InputStream in = store.open("gs://b/t/data/part-0.parquet")) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
    assertThatThrownBy(
            () ->
                store.copyFrom(
                    new LocalObjectStore(),
                    dir.resolve("absent").toString(),
                    "gs://b/t/data/absent",
                    -1))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(store.length("gs://b/t/data/absent")).isEmpty();
  }

  @Test
  void aCopyInsideGcsRunsThereAndTellsNoLength() throws IOException {
    byte[] content = pattern(70_000);
    store.write("gs://b/src/part-0.parquet", out -> out.write(content));
    GcsObjectStore sameClient = new GcsObjectStore(storage);
    calls.clear();

    OptionalLong copied =
        store.copyFrom(sameClient, "gs://b/src/part-0.parquet", "gs://other/dst/part-0.parquet", 7);

    assertThat(copied).isEmpty();
    assertThat(calls).containsExactly("copy");
    try (InputStream in = store.open("gs://other/dst/part-0.parquet")) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
    assertThat(store.canCopyServerSideFrom(sameClient)).isTrue();
    assertThat(store.canCopyServerSideFrom(new LocalObjectStore())).isFalse();
  }

  @Test
  void aDeleteExpectingAStaleGenerationChangesNothing() throws IOException {
    String lease = "gs://b/t/.lease";
    ObjectVersion first = store.replaceIf(lease, Optional.empty(), bytes("run-1")).orElseThrow();
    ObjectVersion second = store.replaceIf(lease, Optional.of(first), bytes("run-2")).orElseThrow();

    assertThat(store.deleteIf(lease, first)).isFalse();
    assertThat(store.readVersioned(lease).orElseThrow().version()).isEqualTo(second);
    assertThat(
            new String(store.readVersioned(lease).orElseThrow().content(), StandardCharsets.UTF_8))
        .isEqualTo("run-2");

    assertThat(store.deleteIf(lease, second)).isTrue();
    assertThat(store.length(lease)).isEmpty();
    assertThat(store.deleteIf(lease, second)).isFalse();
  }

  /**
   * Another writer replaces the object between the metadata read and the content read: the store
   * must not pair the new bytes with the old generation, which would let a stale write through.
   */
  @Test
  void aVersionedReadPairsBytesWithTheirOwnGeneration() throws IOException {
    Storage plain = PreconditionEnforcingStorage.around(fakeStorage());
    GcsObjectStore other = new GcsObjectStore(plain);
    String state = "gs://b/t/.replicator-state.json";
    ObjectVersion first = other.replaceIf(state, Optional.empty(), bytes("first")).orElseThrow();
    boolean[] replaced = {false};
    Storage racing =
        (Storage)
            Proxy.newProxyInstance(
                Storage.class.getClassLoader(),
                new Class<?>[] {Storage.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("readAllBytes") && !replaced[0]) {
                    replaced[0] = true;
                    other.replaceIf(state, Optional.of(first), bytes("second")).orElseThrow();
                  }
                  try {
                    return method.invoke(plain, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });

    VersionedObject read = new GcsObjectStore(racing).readVersioned(state).orElseThrow();

    assertThat(replaced[0]).isTrue();
    assertThat(new String(read.content(), StandardCharsets.UTF_8)).isEqualTo("second");
    assertThat(read.version()).isNotEqualTo(first);
    assertThat(other.replaceIf(state, Optional.of(first), bytes("stale"))).isEmpty();
    assertThat(other.replaceIf(state, Optional.of(read.version()), bytes("third"))).isPresent();
  }

  @Test
  void aProducerThatFailsMidWriteLeavesNoObject() throws IOException {
    byte[] content = pattern(3 * CHUNK);
    IOException failure = new IOException("source went away");

    assertThatThrownBy(
            () ->
                store.write(
                    "gs://b/t/data/part-9.parquet",
                    out -> {
                      out.write(content); // several chunks already sent
                      throw failure;
                    }))
        .isSameAs(failure);
    assertThatThrownBy(
            () ->
                store.createIfAbsent(
                    "gs://b/t/metadata/v9.metadata.json",
                    out -> {
                      out.write(content);
                      throw new UncheckedIOException(failure);
                    }))
        .isInstanceOf(UncheckedIOException.class);

    assertThat(store.length("gs://b/t/data/part-9.parquet")).isEmpty();
    assertThat(store.length("gs://b/t/metadata/v9.metadata.json")).isEmpty();
    assertThat(store.list("gs://b/t/data")).isEmpty();
    assertThat(store.list("gs://b/t/metadata")).isEmpty();
  }

  @Test
  void aFailedOverwriteLeavesTheObjectThatWasThere() throws IOException {
    store.write("gs://b/t/data/part-1.parquet", out -> out.write(bytes("old")));

    assertThatThrownBy(
            () ->
                store.write(
                    "gs://b/t/data/part-1.parquet",
                    out -> {
                      out.write(pattern(CHUNK + 1));
                      throw new IOException("producer failed");
                    }))
        .hasMessage("producer failed");

    try (InputStream in = store.open("gs://b/t/data/part-1.parquet")) {
      assertThat(in.readAllBytes()).isEqualTo(bytes("old"));
    }
  }

  @Test
  void aStreamedCreateNeverReplaces() throws IOException {
    assertThat(store.createIfAbsent("gs://b/t/v1.json", out -> out.write(bytes("first")))).isTrue();
    assertThat(store.createIfAbsent("gs://b/t/v1.json", out -> out.write(bytes("second"))))
        .isFalse();

    assertThat(new String(store.readVersioned("gs://b/t/v1.json").orElseThrow().content()))
        .isEqualTo("first");
  }

  @Test
  void aListingByNamePrefixIsOneRequestWithLengthsAndTimes() throws IOException {
    long before = System.currentTimeMillis() - 2_000;
    store.createIfAbsent("gs://b/t/metadata/v1.metadata.json", bytes("{}"));
    store.createIfAbsent("gs://b/t/metadata/v2.metadata.json", bytes("{ }"));
    store.createIfAbsent("gs://b/t/metadata/snap-1.avro", bytes("avro"));
    store.createIfAbsent("gs://b/t/metadata/deeper/v3.metadata.json", bytes("{}"));
    calls.clear();

    Map<String, Long> lengths = new TreeMap<>();
    store.listLengths("gs://b/t/metadata", "v", lengths::put);

    assertThat(lengths)
        .containsExactly(Map.entry("v1.metadata.json", 2L), Map.entry("v2.metadata.json", 3L));
    assertThat(calls).containsExactly("list");
    assertThat(store.listEntries("gs://b/t/metadata"))
        .allSatisfy(e -> assertThat(e.lastModifiedMs()).isGreaterThan(before));
    assertThat(store.listFolders("gs://b/t/metadata")).containsExactly("deeper");
    assertThat(store.list("gs://b/t")).isEmpty();
    assertThat(store.listFolders("gs://b/t")).containsExactly("metadata");
  }

  /**
   * MD5 as hex (as an S3 ETag is), CRC32C as base64 of its big-endian bytes (as S3 gives it), so
   * equal bytes give equal values on every store. The fake keeps the CRC32C the client library
   * computes and sends with a {@code create}, and no MD5, so the MD5 is checked on metadata alone.
   */
  @Test
  void checksumsAreGivenAsEveryStoreGivesThem() throws Exception {
    Storage bare = fakeStorage();
    byte[] content = bytes("the same bytes on every store");
    byte[] md5 = MessageDigest.getInstance("MD5").digest(content);
    CRC32C crc = new CRC32C();
    crc.update(content);
    String crc32c =
        Base64.getEncoder()
            .encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    bare.create(BlobInfo.newBuilder(BlobId.of("b", "t/data/part-0.parquet")).build(), content);

    assertThat(new GcsObjectStore(bare).info("gs://b/t/data/part-0.parquet"))
        .contains(new ObjectInfo(content.length, Map.of("CRC32C", crc32c)));
    assertThat(new GcsObjectStore(bare).info("gs://b/t/data/absent")).isEmpty();
    assertThat(
            GcsObjectStore.checksumsOf(
                BlobInfo.newBuilder(BlobId.of("b", "t/data/part-0.parquet"))
                    .setMd5(Base64.getEncoder().encodeToString(md5))
                    .setCrc32c(crc32c)
                    .build()))
        .isEqualTo(Map.of("MD5", HexFormat.of().formatHex(md5), "CRC32C", crc32c));
  }

  @Test
  void tableLeasesAreLeftToTheStoreAgnosticLock() {
    assertThatThrownBy(() -> store.lock("gs://b/t"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("table leases on GCS: see LeaseLocks");
  }

  @Test
  void aPathOfAnotherStoreIsRefusedByName() {
    assertThatThrownBy(() -> store.length("s3://b/t/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://b/t/x");
  }

  private static Storage fakeStorage() {
    return LocalStorageHelper.getOptions().getService();
  }

  /** {@code storage}, noting the name of each method called on it. */
  private Storage recording(Storage storage) {
    return (Storage)
        Proxy.newProxyInstance(
            Storage.class.getClassLoader(),
            new Class<?>[] {Storage.class},
            (proxy, method, args) -> {
              if (method.getDeclaringClass() != Object.class) {
                calls.add(method.getName());
              }
              try {
                return method.invoke(storage, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 + (i >>> 8));
    }
    return bytes;
  }

  private static byte[] slice(byte[] bytes, int from, int length) {
    byte[] slice = new byte[length];
    System.arraycopy(bytes, from, slice, 0, length);
    return slice;
  }
}
