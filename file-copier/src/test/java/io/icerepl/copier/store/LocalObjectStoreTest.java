package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreTest {
  @TempDir Path dir;
  private final LocalObjectStore store = new LocalObjectStore();

  private String uri(String name) {
    return dir.resolve(name).toUri().toString();
  }

  @Test
  void entriesCarryTheirLastModificationTimes() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("metadata"));
    Files.writeString(folder.resolve("00001-a.metadata.json"), "{}");
    Files.setLastModifiedTime(
        folder.resolve("00001-a.metadata.json"),
        java.nio.file.attribute.FileTime.fromMillis(1_000_000L));
    Files.createDirectories(folder.resolve("sub"));

    assertThat(store.listEntries(folder.toUri().toString()))
        .containsExactly(new ObjectStore.Entry("00001-a.metadata.json", 1_000_000L));
  }

  @Test
  void aReplacedFileTakesTheChecksumAHadoopWriterLeftBesideItAlong() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("metadata"));
    Files.writeString(folder.resolve("version-hint.text"), "1");
    Files.write(folder.resolve(".version-hint.text.crc"), new byte[] {'c', 'r', 'c', 0});
    Files.write(folder.resolve(".v1.metadata.json.crc"), new byte[] {'c', 'r', 'c', 0});

    store.write(uri("metadata/version-hint.text"), out -> out.write(bytes("2")));

    assertThat(Files.readString(folder.resolve("version-hint.text"))).isEqualTo("2");
    assertThat(folder.resolve(".version-hint.text.crc")).doesNotExist();
    assertThat(folder.resolve(".v1.metadata.json.crc")).exists();
  }

  @Test
  void createIfAbsentNeverReplacesAnExistingFile() throws IOException {
    assertThat(store.createIfAbsent(uri("metadata/v1.metadata.json"), bytes("first"))).isTrue();
    assertThat(store.createIfAbsent(uri("metadata/v1.metadata.json"), bytes("second"))).isFalse();
    assertThat(Files.readString(dir.resolve("metadata/v1.metadata.json"))).isEqualTo("first");
    assertThat(hiddenTemporaries()).isZero();
  }

  @Test
  void aFailedWriteLeavesNoFileAndNoTemporary() {
    assertThatThrownBy(
            () ->
                store.write(
                    uri("data/a.parquet"),
                    out -> {
                      out.write(bytes("partial"));
                      throw new IOException("disk gone");
                    }))
        .hasMessage("disk gone");
    assertThat(Files.exists(dir.resolve("data/a.parquet"))).isFalse();
    assertThat(hiddenTemporaries()).isZero();
  }

  @Test
  void writeReplacesAndReportsTheLength() throws IOException {
    store.write(uri("version-hint.text"), out -> out.write(bytes("1")));
    long length = store.write(uri("version-hint.text"), out -> out.write(bytes("12")));
    assertThat(length).isEqualTo(2);
    assertThat(store.length(uri("version-hint.text"))).hasValue(2);
  }

  @Test
  void everyLocalSpellingNamesTheSameFile() throws IOException {
    Files.writeString(dir.resolve("x"), "abc");
    String plain = dir.resolve("x").toString();
    assertThat(store.length(plain)).hasValue(3);
    assertThat(store.length("file:" + plain)).hasValue(3);
    assertThat(store.length("file://" + plain)).hasValue(3);
    assertThat(store.length(uri("missing"))).isEmpty();
  }

  @Test
  void seekableReadsAtAPositionAndFailsPastTheEnd() throws IOException {
    Files.writeString(dir.resolve("f"), "0123456789");
    try (SeekableInput in = store.openSeekable(uri("f"))) {
      byte[] buffer = new byte[3];
      in.readFully(4, buffer, 0, 3);
      assertThat(new String(buffer, StandardCharsets.UTF_8)).isEqualTo("456");
      assertThatThrownBy(() -> in.readFully(9, buffer, 0, 3))
          .isInstanceOf(java.io.EOFException.class);
    }
  }

  @Test
  void copyFromPutsAnIdenticalFileAndOpeningAMissingFileSaysSo() throws IOException {
    Files.writeString(dir.resolve("src"), "payload");
    store.copyFrom(store, uri("src"), uri("deep/er/dst"), -1);
    assertThat(Files.readString(dir.resolve("deep/er/dst"))).isEqualTo("payload");
    assertThatThrownBy(() -> store.open(uri("nope"))).isInstanceOf(NoSuchFileException.class);
    assertThat(store.list(uri("deep/er"))).containsExactly("dst");
    assertThat(store.listFolders(uri("deep"))).containsExactly("er");
    assertThat(store.list(uri("deep"))).isEmpty();
    assertThat(store.list(uri("absent"))).isEmpty();
  }

  @Test
  void aTableLockIsExclusiveUntilReleasedWhateverTheSpelling() throws IOException {
    String location = dir.resolve("table").toString();
    try (ObjectStore.Lock held = store.lock(location)) {
      assertThatThrownBy(() -> store.lock("file://" + location + "/"))
          .isInstanceOf(io.icerepl.merge.error.ConflictException.class)
          .hasMessageContaining("another replication or retention run holds it");
    }
    store.lock("file:" + location).close();
  }

  /** Each holding numbers one above the last, a raised epoch included, across releases. */
  @Test
  void eachHoldingOfATableLockCarriesALargerEpoch() throws IOException {
    String location = dir.resolve("numbered").toString();
    long first;
    try (ObjectStore.Lock held = store.lock(location)) {
      first = held.epoch();
      assertThat(held.raiseEpoch(first + 10, "take fencing epoch")).isEqualTo(first + 10);
    }
    try (ObjectStore.Lock held = store.lock("file://" + location)) {
      assertThat(held.epoch()).isEqualTo(first + 11);
    }
    try (ObjectStore.Lock held = store.lock(location)) {
      assertThat(held.epoch()).isEqualTo(first + 12);
    }
  }

  private long hiddenTemporaries() {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
