package io.icerepl.copier.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobSourceOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.Storage.BlobWriteOption;
import com.google.cloud.storage.Storage.CopyRequest;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.icerepl.localstack.PreconditionEnforcingStorage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What LocalStorageHelper's fake does and does not do of what GCS does, as {@code
 * docs/stores/gcs.md} lists it: each gap pinned here, so that a version of the fake that closes one
 * fails a test and the note and {@link PreconditionEnforcingStorage} can shrink.
 */
class LocalStorageFakeTest {
  private static final BlobId ID = BlobId.of("b", "t/state.json");

  private Storage fake;

  @BeforeEach
  void newFake() {
    fake = LocalStorageHelper.getOptions().getService();
  }

  // What it emulates.

  @Test
  void rangedReadsSeekAndLimit() throws IOException {
    fake.create(BlobInfo.newBuilder(ID).build(), bytes("0123456789"));

    try (ReadChannel reader = fake.reader(ID)) {
      reader.seek(3);
      reader.limit(6);
      ByteBuffer read = ByteBuffer.allocate(10);
      while (reader.read(read) >= 0) {
        // to the limit
      }
      assertThat(new String(read.array(), 0, read.position(), StandardCharsets.UTF_8))
          .isEqualTo("345");
    }
  }

  @Test
  void aCopyIsARewriteAndAMissingSourceIs404() {
    fake.create(BlobInfo.newBuilder(ID).build(), bytes("state"));

    Blob copy = fake.copy(CopyRequest.of(ID, BlobId.of("other", "copy.json"))).getResult();

    assertThat(copy.getSize()).isEqualTo(5);
    assertThat(fake.readAllBytes(BlobId.of("other", "copy.json"))).isEqualTo(bytes("state"));
    assertThatThrownBy(() -> fake.copy(CopyRequest.of(BlobId.of("b", "absent"), ID)).getResult())
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(404));
  }

  @Test
  void aListingOfTheCurrentDirectoryGivesObjectsAndPrefixes() {
    fake.create(BlobInfo.newBuilder(BlobId.of("b", "t/a.json")).build(), bytes("a"));
    fake.create(BlobInfo.newBuilder(BlobId.of("b", "t/sub/b.json")).build(), bytes("bb"));
    fake.create(BlobInfo.newBuilder(BlobId.of("b", "u/c.json")).build(), bytes("c"));

    List<String> listed = new ArrayList<>();
    fake.list("b", BlobListOption.prefix("t/"), BlobListOption.currentDirectory())
        .iterateAll()
        .forEach(blob -> listed.add(blob.getName() + (blob.isDirectory() ? " (prefix)" : "")));

    assertThat(listed).containsExactlyInAnyOrder("t/a.json", "t/sub/ (prefix)");
  }

  @Test
  void anUploadIsReadableOnlyOnceFinalizedAndGetsATimeOfUpdate() throws IOException {
    long before = System.currentTimeMillis() - 2_000;
    try (WriteChannel writer = fake.writer(BlobInfo.newBuilder(ID).build())) {
      writer.write(ByteBuffer.wrap(bytes("state")));
      assertThatThrownBy(() -> fake.readAllBytes(ID)).isInstanceOf(StorageException.class);
    }

    assertThat(fake.readAllBytes(ID)).isEqualTo(bytes("state"));
    assertThat(fake.get(ID).getUpdateTimeOffsetDateTime().toInstant().toEpochMilli())
        .isGreaterThan(before);
  }

  // What it does not.

  @Test
  void aCreateWithAPreconditionFails() {
    assertThatThrownBy(
            () ->
                fake.create(
                    BlobInfo.newBuilder(ID).build(), bytes("x"), BlobTargetOption.doesNotExist()))
        .isInstanceOf(StorageException.class)
        .hasCauseInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aCreateGivesNoGeneration() {
    fake.create(BlobInfo.newBuilder(ID).build(), bytes("x"));

    assertThat(fake.get(ID).getGeneration()).isNull();
  }

  @Test
  void anUploadsGenerationIsTheClocksMillisecondSoTwoCanShareOne() throws IOException {
    long before = System.currentTimeMillis();
    upload(ID, "x");
    long after = System.currentTimeMillis();

    assertThat(fake.get(ID).getGeneration()).isBetween(before, after);
  }

  @Test
  void anUploadsPreconditionFailsWithout412() {
    upload(ID, "x");

    assertThatThrownBy(
            () -> fake.writer(BlobInfo.newBuilder(ID).build(), BlobWriteOption.doesNotExist()))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isNotEqualTo(412));
    assertThatThrownBy(
            () -> fake.writer(BlobInfo.newBuilder(ID).build(), BlobWriteOption.generationMatch(1L)))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(404));
  }

  @Test
  void aDeleteIgnoresItsPrecondition() {
    upload(ID, "x");
    long stale = fake.get(ID).getGeneration() - 1;

    assertThat(fake.delete(ID, BlobSourceOption.generationMatch(stale))).isTrue();
    assertThat(fake.get(ID)).isNull();
  }

  @Test
  void aReadIgnoresItsPrecondition() {
    upload(ID, "x");
    long stale = fake.get(ID).getGeneration() - 1;

    assertThat(fake.readAllBytes(ID, BlobSourceOption.generationMatch(stale)))
        .isEqualTo(bytes("x"));
  }

  @Test
  void anUploadNeverFinalizedLeavesAnObjectWithoutSize() throws IOException {
    WriteChannel abandoned = fake.writer(BlobInfo.newBuilder(ID).build());
    abandoned.write(ByteBuffer.wrap(bytes("partial")));

    assertThat(fake.get(ID)).isNotNull();
    assertThat(fake.get(ID).getSize()).isNull();
  }

  @Test
  void anUploadCarriesNoChecksums() {
    upload(ID, "x");

    assertThat(fake.get(ID).getCrc32c()).isNull();
    assertThat(fake.get(ID).getMd5()).isNull();
  }

  @Test
  void aPageSizeCutsTheListingShortWithoutANextPage() {
    upload(BlobId.of("b", "t/a"), "a");
    upload(BlobId.of("b", "t/b"), "b");

    List<String> listed = new ArrayList<>();
    fake.list("b", BlobListOption.prefix("t/"), BlobListOption.pageSize(1))
        .iterateAll()
        .forEach(blob -> listed.add(blob.getName()));

    assertThat(listed).hasSize(1);
  }

  private void upload(BlobId id, String content) {
    try (WriteChannel writer = fake.writer(BlobInfo.newBuilder(id).build())) {
      writer.write(ByteBuffer.wrap(bytes(content)));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
