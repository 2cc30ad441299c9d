package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.io.SeekableInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What every store promises, its conditional writes ({@link ConditionalWriteContract}) and: a
 * streamed write read back whole and from any position, listings of a folder's objects and
 * subfolders by name, a create that never replaces, deletes that need no object, and a missing
 * object reported the same way on every store ({@link NoSuchFileException} to read, empty to ask
 * its length). Each store's test extends this with its own store and a {@link #path} that may hold
 * '/', so a new store passes the same checks as S3 and local files.
 */
public abstract class ObjectStoreContract extends ConditionalWriteContract {
  @Test
  void aStreamedWriteReadsBackWholeWithItsLength() throws IOException {
    byte[] content = pattern(300_000);

    long written =
        store()
            .write(
                path("data/part-0.parquet"),
                out -> {
                  // in pieces, as a rewriter streams
                  for (int at = 0; at < content.length; at += 7_000) {
                    out.write(content, at, Math.min(7_000, content.length - at));
                  }
                });

    assertThat(written).isEqualTo(content.length);
    assertThat(store().length(path("data/part-0.parquet"))).hasValue(content.length);
    try (InputStream in = store().open(path("data/part-0.parquet"))) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
  }

  @Test
  void aRangedReadReadsFromAnyPosition() throws IOException {
    byte[] content = pattern(100_000);
    store().write(path("data/part-1.parquet"), out -> out.write(content));

    try (SeekableInput in = store().openSeekable(path("data/part-1.parquet"))) {
      assertThat(in.length()).isEqualTo(content.length);
      byte[] tail = new byte[8];
      in.readFully(content.length - 8, tail, 0, 8);
      byte[] middle = new byte[1_000];
      in.readFully(51_234, middle, 0, 1_000);
      byte[] head = new byte[4];
      in.readFully(0, head, 0, 4);

      assertThat(tail).isEqualTo(slice(content, content.length - 8, 8));
      assertThat(middle).isEqualTo(slice(content, 51_234, 1_000));
      assertThat(head).isEqualTo(slice(content, 0, 4));
    }
  }

  @Test
  void aFolderListsItsObjectsAndSubfoldersByName() throws IOException {
    store().createIfAbsent(path("t/metadata/v1.metadata.json"), bytes("{}"));
    store().createIfAbsent(path("t/metadata/v2.metadata.json"), bytes("{ }"));
    store().createIfAbsent(path("t/data/a/part-0.parquet"), bytes("a"));
    store().createIfAbsent(path("t/data/b/part-0.parquet"), bytes("bb"));

    assertThat(store().list(path("t/metadata")))
        .containsExactlyInAnyOrder("v1.metadata.json", "v2.metadata.json");
    assertThat(store().listEntries(path("t/metadata")))
        .extracting(ObjectStore.Entry::name)
        .containsExactlyInAnyOrder("v1.metadata.json", "v2.metadata.json");
    assertThat(store().listFolders(path("t/data"))).containsExactlyInAnyOrder("a", "b");
    assertThat(store().list(path("t/data"))).isEmpty();
    assertThat(store().list(path("t/absent"))).isEmpty();
    Map<String, Long> lengths = new TreeMap<>();
    store().listLengths(path("t/metadata"), lengths::put);
    assertThat(lengths).containsEntry("v1.metadata.json", 2L).containsEntry("v2.metadata.json", 3L);
  }

  @Test
  void aCreateNeverReplacesWhatIsThere() throws IOException {
    assertThat(store().createIfAbsent(path("t/metadata/v3.metadata.json"), bytes("first")))
        .isTrue();
    assertThat(store().createIfAbsent(path("t/metadata/v3.metadata.json"), bytes("second")))
        .isFalse();

    assertThat(read(path("t/metadata/v3.metadata.json"))).isEqualTo("first");
  }

  @Test
  void aMissingObjectIsReportedAlikeByEveryStore() throws IOException {
    String missing = path("t/metadata/v9.metadata.json");

    assertThat(store().length(missing)).isEmpty();
    assertThat(store().info(missing)).isEmpty();
    assertThat(store().readVersioned(missing)).isEmpty();
    assertThatThrownBy(() -> store().open(missing).close()).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void deletesRemoveObjectsAndNeedNone() throws IOException {
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      paths.add(path("t/data/old-" + i + ".parquet"));
      store().createIfAbsent(paths.get(i), bytes("x" + i));
    }

    store().delete(paths.get(0));
    store().delete(paths.get(0));
    store().deleteAll(paths.subList(1, 5));
    store().deleteAll(List.of(path("t/data/never-there.parquet")));

    for (String gone : paths) {
      assertThat(store().length(gone)).as(gone).isEmpty();
    }
    assertThat(store().list(path("t/data"))).isEmpty();
  }

  @Test
  void aCopyWithinTheStoreIsIdenticalAndAMissingSourceIsReportedAlike() throws IOException {
    byte[] content = pattern(70_000);
    store().write(path("src/part-2.parquet"), out -> out.write(content));

    store().copyFrom(store(), path("src/part-2.parquet"), path("dst/deep/part-2.parquet"), -1);

    try (InputStream in = store().open(path("dst/deep/part-2.parquet"))) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
    assertThatThrownBy(() -> store().copyFrom(store(), path("src/absent"), path("dst/absent"), -1))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(store().length(path("dst/absent"))).isEmpty();
  }

  private String read(String path) throws IOException {
    try (InputStream in = store().open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Bytes that differ at every position a test reads, so a read from the wrong offset shows. */
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
