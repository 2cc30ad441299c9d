package io.icerepl.copier.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.merge.io.SeekableInput;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3ObjectStoreTest {
  private static final int MIB = 1024 * 1024;
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static EmbeddedS3 s3;
  private static S3TestClients clients;

  @TempDir Path dir;
  private String bucket;
  private S3ObjectStore store;

  @BeforeAll
  static void startS3() {
    s3 = EmbeddedS3.start();
    clients = new S3TestClients(s3, 5 * MIB);
  }

  @AfterAll
  static void stopS3() {
    clients.close();
    s3.close();
  }

  @BeforeEach
  void newBucket() {
    bucket = "store-test-" + BUCKETS.incrementAndGet();
    s3.createBucket(bucket);
    clients.reset();
    store = storeWith(S3StoreSettings.defaults("test-owner"));
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private S3ObjectStore storeWith(S3StoreSettings settings) {
    return new S3ObjectStore(
        clients.client, clients.asyncClient, settings, S3Resilience.defaults());
  }

  private String uri(String key) {
    return "s3://" + bucket + "/" + key;
  }

  @Test
  void createIfAbsentNeverReplacesAnExistingObject() throws IOException {
    assertThat(store.createIfAbsent(uri("metadata/v1.metadata.json"), bytes("first"))).isTrue();
    assertThat(store.createIfAbsent(uri("metadata/v1.metadata.json"), bytes("second"))).isFalse();
    assertThat(read(uri("metadata/v1.metadata.json"))).isEqualTo("first");
  }

  @Test
  void aCreationLargerThanTheMemoryBufferIsSentFromATemporaryFileNotHeldInHeap()
      throws IOException {
    S3ObjectStore spilling =
        storeWith(S3StoreSettings.defaults("test-owner").withMemoryBufferBytes(MIB));
    byte[] chunk = randomBytes(MIB);
    int chunks = 16;
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();

    long before = threads.getThreadAllocatedBytes(thread);
    boolean created =
        spilling.createIfAbsent(
            uri("metadata/v1.metadata.json"),
            out -> {
              for (int i = 0; i < chunks; i++) {
                out.write(chunk);
              }
            });
    long allocated = threads.getThreadAllocatedBytes(thread) - before;

    assertThat(created).isTrue();
    // a metadata file of a long history is as large as the heap allows: no whole copy of it is
    // made (buffered in memory it costs a growing buffer, its copy and the request's copy, over 4
    // times its size; streamed from the file, the client's reads, about its size in small chunks)
    assertThat(allocated).isLessThan(chunks * MIB * 3 / 2);
    byte[] stored = readBytes(uri("metadata/v1.metadata.json"));
    assertThat(stored).hasSize(chunks * MIB);
    for (int i = 0; i < chunks; i++) {
      assertThat(Arrays.copyOfRange(stored, i * MIB, (i + 1) * MIB)).isEqualTo(chunk);
    }
    assertThat(spilling.createIfAbsent(uri("metadata/v1.metadata.json"), out -> out.write(chunk)))
        .isFalse();
  }

  @Test
  void writeReplacesAndReportsTheLength() throws IOException {
    store.write(uri("version-hint.text"), out -> out.write(bytes("1")));
    long length = store.write(uri("version-hint.text"), out -> out.write(bytes("12")));
    assertThat(length).isEqualTo(2);
    assertThat(store.length(uri("version-hint.text"))).hasValue(2);
    assertThat(read(uri("version-hint.text"))).isEqualTo("12");
  }

  @Test
  void aFailedWriterLeavesNoObjectAndSendsNothing() {
    assertThatThrownBy(
            () ->
                store.write(
                    uri("data/a.parquet"),
                    out -> {
                      out.write(new byte[2 * MIB]);
                      throw new IOException("disk gone");
                    }))
        .hasMessage("disk gone");
    assertThat(clients.operations()).isEmpty();
  }

  @Test
  void aMissingObjectHasNoLengthAndCannotBeOpened() throws IOException {
    assertThat(store.length(uri("missing"))).isEmpty();
    assertThatThrownBy(() -> store.open(uri("missing")))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(uri("missing"));
    assertThatThrownBy(() -> store.openSeekable(uri("missing")))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(uri("missing"));
    store.delete(uri("missing"));
  }

  @Test
  void everyS3SchemeNamesTheSameObject() throws IOException {
    store.write("s3a://" + bucket + "/x", out -> out.write(bytes("abc")));
    assertThat(store.length("s3://" + bucket + "/x")).hasValue(3);
    assertThat(store.length("s3n://" + bucket + "/x")).hasValue(3);
    assertThatThrownBy(() -> store.length("gs://" + bucket + "/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gs://" + bucket + "/x");
  }

  @Test
  void deleteRemovesAndToleratesAnObjectAlreadyGone() throws IOException {
    store.write(uri("f"), out -> out.write(bytes("x")));
    store.delete(uri("f"));
    store.delete(uri("f"));
    assertThat(store.length(uri("f"))).isEmpty();
  }

  @Test
  void deleteAllIsOneRequestPerThousandKeysAndToleratesKeysAlreadyGone() throws IOException {
    List<String> paths = new java.util.ArrayList<>();
    for (int i = 0; i < 2_001; i++) {
      String path = uri("t/data/f-" + i);
      store.createIfAbsent(path, bytes("x"));
      paths.add(path);
    }
    paths.add(uri("t/data/never-written"));
    store.createIfAbsent(uri("t/data/kept"), bytes("k"));
    clients.reset();
    store.deleteAll(paths);
    assertThat(clients.operations())
        .containsExactly("DeleteObjects", "DeleteObjects", "DeleteObjects");
    assertThat(store.list(uri("t/data"))).containsExactly("kept");
  }

  @Test
  void deleteAllOfTwoBucketsAsksEachItsOwn() throws IOException {
    String other = bucket + "-other";
    s3.createBucket(other);
    store.createIfAbsent(uri("a"), bytes("a"));
    store.createIfAbsent("s3://" + other + "/b", bytes("b"));
    clients.reset();
    store.deleteAll(List.of(uri("a"), "s3://" + other + "/b"));
    assertThat(clients.operations()).containsExactly("DeleteObjects", "DeleteObjects");
    assertThat(store.length(uri("a"))).isEmpty();
    assertThat(store.length("s3://" + other + "/b")).isEmpty();
  }

  @Test
  void seekableReadsAtPositionsAndFailsPastTheEnd() throws IOException {
    store.write(uri("f"), out -> out.write(bytes("0123456789")));
    try (SeekableInput in = store.openSeekable(uri("f"))) {
      assertThat(in.length()).isEqualTo(10);
      byte[] buffer = new byte[3];
      in.readFully(4, buffer, 0, 3);
      assertThat(new String(buffer, StandardCharsets.UTF_8)).isEqualTo("456");
      in.readFully(7, buffer, 0, 3);
      assertThat(new String(buffer, StandardCharsets.UTF_8)).isEqualTo("789");
      assertThatThrownBy(() -> in.readFully(9, buffer, 0, 3))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining(uri("f"));
    }
  }

  @Test
  void aFooterReadFromTheTailCostsOneRangedGet() throws IOException {
    byte[] content = randomBytes(3 * MIB);
    store.write(uri("data/f.parquet"), out -> out.write(content));
    clients.reset();
    try (SeekableInput in = store.openSeekable(uri("data/f.parquet"))) {
      byte[] tail = new byte[8];
      in.readFully(content.length - 8, tail, 0, 8);
      byte[] footer = new byte[64 * 1024];
      in.readFully(content.length - 8 - footer.length, footer, 0, footer.length);
      assertThat(tail).isEqualTo(slice(content, content.length - 8, 8));
      assertThat(footer)
          .isEqualTo(slice(content, content.length - 8 - footer.length, footer.length));
      byte[] big = new byte[2 * MIB];
      in.readFully(1, big, 0, big.length);
      assertThat(big).isEqualTo(slice(content, 1, big.length));
    }
    assertThat(clients.operations()).containsExactly("HeadObject", "GetObject", "GetObject");
  }

  @Test
  void listingsFollowEveryPage() throws IOException {
    S3ObjectStore paged = storeWith(S3StoreSettings.defaults("test-owner").withListPageSize(7));
    for (int i = 0; i < 30; i++) {
      paged.write(uri(String.format("t/data/f%02d", i)), out -> out.write(bytes("x")));
    }
    for (int i = 0; i < 12; i++) {
      paged.write(uri(String.format("t/data/p=%02d/f", i)), out -> out.write(bytes("x")));
    }
    clients.reset();
    assertThat(paged.list(uri("t/data"))).hasSize(30).startsWith("f00", "f01").endsWith("f29");
    assertThat(paged.listFolders(uri("t/data/"))).hasSize(12).startsWith("p=00").endsWith("p=11");
    assertThat(paged.list(uri("t/nothing"))).isEmpty();
    assertThat(paged.listFolders(uri("t"))).containsExactly("data");
    // 42 entries at 7 a page make 6 pages per listing, and 1 page for each small one.
    assertThat(clients.operations()).containsOnly("ListObjectsV2").hasSize(14);
  }

  @Test
  void entriesCarryTheirLastModificationTimes() throws IOException {
    long before = System.currentTimeMillis() - 1_000;
    store.write(uri("t/metadata/00001-a.metadata.json"), out -> out.write(bytes("{}")));
    store.write(uri("t/metadata/00002-b.metadata.json"), out -> out.write(bytes("{}")));

    List<ObjectStore.Entry> entries = store.listEntries(uri("t/metadata"));

    assertThat(entries)
        .extracting(ObjectStore.Entry::name)
        .containsExactly("00001-a.metadata.json", "00002-b.metadata.json");
    assertThat(entries)
        .allSatisfy(
            e ->
                assertThat(e.lastModifiedMs())
                    .isBetween(before, System.currentTimeMillis() + 1_000));
  }

  @Test
  void aCopyOnTheSameEndpointRunsInsideS3() throws IOException {
    store.write(uri("src/a"), out -> out.write(bytes("payload")));
    clients.reset();
    store.copyFrom(store, uri("src/a"), uri("dst/a"), -1);
    assertThat(clients.operations())
        .contains("CopyObject")
        .doesNotContain("GetObject", "PutObject");
    assertThat(read(uri("dst/a"))).isEqualTo("payload");
  }

  @Test
  void aCopyOfARecordedLengthIsOneCopyObjectAndAMissingSourceIsNamed() throws IOException {
    store.write(uri("src/b"), out -> out.write(bytes("payload")));
    clients.reset();
    assertThat(store.copyFrom(store, uri("src/b"), uri("dst/b"), 7)).isEmpty();
    assertThat(clients.operations()).containsExactly("CopyObject");
    assertThat(read(uri("dst/b"))).isEqualTo("payload");
    assertThatThrownBy(() -> store.copyFrom(store, uri("src/gone"), uri("dst/gone"), 7))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(uri("src/gone"))
        .hasMessageContaining("missing at the source");
  }

  @Test
  void listedLengthsAreOneListingOfTheFolder() throws IOException {
    store.write(uri("t/data/a"), out -> out.write(bytes("abc")));
    store.write(uri("t/data/b"), out -> out.write(bytes("abcde")));
    store.write(uri("t/data/sub/c"), out -> out.write(bytes("x")));
    clients.reset();
    Map<String, Long> listed = new TreeMap<>();
    store.listLengths(uri("t/data"), listed::put);
    assertThat(listed).containsExactly(Map.entry("a", 3L), Map.entry("b", 5L));
    assertThat(clients.operations()).containsExactly("ListObjectsV2");
  }

  @Test
  void listedLengthsByANamePrefixAskForThoseNamesAlone() throws IOException {
    store.write(uri("t/data/00-a"), out -> out.write(bytes("abc")));
    store.write(uri("t/data/01-b"), out -> out.write(bytes("abcde")));
    store.write(uri("t/data/01-c"), out -> out.write(bytes("ab")));
    store.write(uri("t/data/01/d"), out -> out.write(bytes("x")));
    clients.reset();
    Map<String, Long> listed = new TreeMap<>();
    store.listLengths(uri("t/data"), "01", listed::put);
    assertThat(listed).containsExactly(Map.entry("01-b", 5L), Map.entry("01-c", 2L));
    assertThat(clients.operations()).containsExactly("ListObjectsV2");
  }

  @Test
  void aCopyFromALocalStoreStreamsIdenticalBytes() throws IOException {
    byte[] content = randomBytes(300_000);
    Files.write(dir.resolve("a.avro"), content);
    store.copyFrom(
        new LocalObjectStore(), dir.resolve("a.avro").toUri().toString(), uri("m/a.avro"), -1);
    assertThat(readBytes(uri("m/a.avro"))).isEqualTo(content);
    assertThatThrownBy(
            () ->
                store.copyFrom(
                    new LocalObjectStore(), dir.resolve("gone").toString(), uri("m/gone"), -1))
        .isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void aCopyToALocalStoreFromS3StreamsIdenticalBytes() throws IOException {
    byte[] content = randomBytes(100_000);
    store.write(uri("a"), out -> out.write(content));
    new LocalObjectStore().copyFrom(store, uri("a"), dir.resolve("a").toString(), -1);
    assertThat(Files.readAllBytes(dir.resolve("a"))).isEqualTo(content);
  }

  @Test
  void writesAndCopiesAboveTheThresholdGoInPartsAndStayIdentical() throws IOException {
    S3ObjectStore multipart =
        storeWith(
            S3StoreSettings.defaults("test-owner")
                .withMultipart(5 * MIB, 5 * MIB, 5 * MIB)
                .withMemoryBufferBytes(MIB));
    byte[] content = randomBytes(12 * MIB + 17);
    clients.reset();
    long length = multipart.write(uri("big/a"), out -> out.write(content));
    assertThat(length).isEqualTo(content.length);
    assertThat(clients.operations())
        .containsExactly(
            "CreateMultipartUpload",
            "UploadPart",
            "UploadPart",
            "UploadPart",
            "CompleteMultipartUpload");
    assertThat(readBytes(uri("big/a"))).isEqualTo(content);
    clients.reset();
    multipart.copyFrom(multipart, uri("big/a"), uri("big/b"), -1);
    assertThat(clients.operations()).contains("UploadPartCopy").doesNotContain("GetObject");
    assertThat(readBytes(uri("big/b"))).isEqualTo(content);
  }

  @Test
  void serverSideCopyNeedsTheSameServiceAndCredentials() {
    S3Endpoint local =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
    S3Endpoint otherRegion =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "eu-west-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
    S3Endpoint otherKey =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of("someone-else"),
            Optional.of("x"),
            true);
    S3StoreSettings settings = S3StoreSettings.defaults("test-owner");
    try (S3ObjectStore a = S3ObjectStore.create(local, settings, S3Resilience.defaults());
        S3ObjectStore b = S3ObjectStore.create(otherRegion, settings, S3Resilience.defaults());
        S3ObjectStore c = S3ObjectStore.create(otherKey, settings, S3Resilience.defaults())) {
      assertThat(a.canCopyServerSideFrom(b)).isTrue();
      assertThat(a.canCopyServerSideFrom(c)).isFalse();
      assertThat(a.canCopyServerSideFrom(new LocalObjectStore())).isFalse();
      assertThat(store.canCopyServerSideFrom(a)).isFalse();
    }
  }

  @Test
  void aStoreFromAnEndpointCopiesAcrossBuckets() throws IOException {
    String other = bucket + "-replica";
    s3.createBucket(other);
    S3Endpoint local =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
    S3StoreSettings settings = S3StoreSettings.defaults("test-owner");
    try (S3ObjectStore source = S3ObjectStore.create(local, settings, S3Resilience.defaults());
        S3ObjectStore target = S3ObjectStore.create(local, settings, S3Resilience.defaults())) {
      source.write(uri("t/data/a"), out -> out.write(bytes("abc")));
      target.copyFrom(source, uri("t/data/a"), "s3://" + other + "/t/data/a", -1);
      assertThat(target.length("s3://" + other + "/t/data/a")).hasValue(3);
    }
  }

  @Test
  void wrongCredentialsAreAccessDeniedNamingThePath() {
    S3Endpoint wrong =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of("not-the-secret"),
            true);
    S3Resilience resilience = S3Resilience.defaults();
    try (S3ObjectStore denied =
        S3ObjectStore.create(wrong, S3StoreSettings.defaults("test-owner"), resilience)) {
      assertThatThrownBy(() -> denied.write(uri("a"), out -> out.write(bytes("x"))))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot write " + uri("a") + ": access denied");
      assertThat(resilience.retries()).isZero();
    }
  }

  private String read(String path) throws IOException {
    return new String(readBytes(path), StandardCharsets.UTF_8);
  }

  private byte[] readBytes(String path) throws IOException {
    try (InputStream in = store.open(path)) {
      return in.readAllBytes();
    }
  }

  static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    new Random(n).nextBytes(bytes);
    return bytes;
  }

  private static byte[] slice(byte[] bytes, int from, int length) {
    return Arrays.copyOfRange(bytes, from, from + length);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
