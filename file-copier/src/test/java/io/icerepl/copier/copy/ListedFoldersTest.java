package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListedFoldersTest {
  @TempDir Path dir;

  private String write(String name, int length) throws IOException {
    Path file = dir.resolve("data").resolve(name);
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[length]);
    return file.toString();
  }

  @Test
  void anObjectIsHeldOnlyWithItsLengthAndWhatThePlanAddsCounts() throws IOException {
    String a = write("a", 3);
    write("b", 5);
    ListedFolders listed = new ListedFolders(new LocalObjectStore(), 10);
    assertThat(listed.holds(a, 3)).contains(true);
    assertThat(listed.holds(a, 4)).contains(false);
    String c = dir.resolve("data/c").toString();
    assertThat(listed.holds(c, 7)).contains(false);
    listed.added(c, 7);
    assertThat(listed.holds(c, 7)).contains(true);
    assertThat(listed.holds(dir.resolve("elsewhere/x").toString(), 1)).contains(false);
    assertThat(listed.listings()).isEqualTo(2);
  }

  @Test
  void aFolderBeyondTheBoundIsAskedPerFile() throws IOException {
    String a = write("a", 3);
    write("b", 5);
    write("c", 1);
    ListedFolders tooSmall = new ListedFolders(new LocalObjectStore(), 2);
    assertThat(tooSmall.holds(a, 3)).isEmpty();
    assertThat(tooSmall.holds(a, 3)).isEmpty();
    assertThat(tooSmall.listings()).isEqualTo(1);

    ListedFolders growing = new ListedFolders(new LocalObjectStore(), 4);
    assertThat(growing.holds(a, 3)).contains(true);
    growing.added(dir.resolve("data/d").toString(), 1);
    growing.added(dir.resolve("data/e").toString(), 1);
    assertThat(growing.holds(a, 3)).isEqualTo(Optional.empty());
  }

  @Test
  void manyAddedObjectsStayFoundAcrossMerges() {
    ListedFolders listed = new ListedFolders(new LocalObjectStore(), 100_000);
    String folder = dir.resolve("data").toString();
    assertThat(listed.holds(folder + "/0", 1)).contains(false);
    for (int i = 0; i < 5000; i++) {
      listed.added(folder + "/" + i, i);
    }
    for (int i = 0; i < 5000; i++) {
      assertThat(listed.holds(folder + "/" + i, i)).contains(true);
    }
    assertThat(listed.holds(folder + "/1", 2)).contains(false);
  }

  /** Records each listing by the name prefix it was made by, "" for the whole folder. */
  private static final class PrefixRecordingStore extends ForwardingObjectStore {
    final List<String> prefixes = new ArrayList<>();

    PrefixRecordingStore() {
      super(new LocalObjectStore());
    }

    @Override
    public void listLengths(String folder, LengthConsumer each) throws IOException {
      prefixes.add("");
      super.listLengths(folder, each);
    }

    @Override
    public void listLengths(String folder, String namePrefix, LengthConsumer each)
        throws IOException {
      prefixes.add(namePrefix);
      super.listLengths(folder, namePrefix, each);
    }
  }

  @Test
  void aFolderAskedAboutManyNamesFirstIsListedInShardsOfTheirPrefixes() throws IOException {
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 6000; i++) {
      paths.add(write(String.format("%05d", i), 1 + i % 7));
    }
    assertThat(ListedFolders.shardLength(List.of("b", "a"))).isZero();
    // 12,500 names from 00000 make 13 shards of up to 1,000 by two characters, not 2 of 10,000 by
    // one
    List<String> numbered = new ArrayList<>();
    for (int i = 0; i < 12_500; i++) {
      numbered.add(String.format("%05d", i));
    }
    assertThat(ListedFolders.shardLength(numbered)).isEqualTo(2);
    PrefixRecordingStore store = new PrefixRecordingStore();
    ListedFolders listed = new ListedFolders(store, 100_000);
    // the first 5,000 names split into 5 shards by two characters, not 50 by three
    listed.shardBy(paths.subList(0, 5000));
    for (int i = 0; i < 6000; i++) {
      assertThat(listed.holds(paths.get(i), 1 + i % 7)).as(paths.get(i)).contains(true);
      assertThat(listed.holds(paths.get(i), 8)).contains(false);
    }
    String added = dir.resolve("data/05999-added").toString();
    assertThat(listed.holds(added, 4)).contains(false);
    listed.added(added, 4);
    assertThat(listed.holds(added, 4)).contains(true);
    assertThat(store.prefixes).containsExactly("00", "01", "02", "03", "04", "05");
    assertThat(listed.listings()).isEqualTo(6);
  }

  @Test
  void namesSharingNoPrefixAreListedInOneListingAfterTheShardsAllowed() throws IOException {
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      first.add(dir.resolve("data").resolve(String.format("x%04d", i)).toString());
    }
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < ListedFolders.MAX_SHARDS + 6; i++) {
      paths.add(write(String.format("%02d-n", i), 3));
    }
    PrefixRecordingStore store = new PrefixRecordingStore();
    ListedFolders listed = new ListedFolders(store, 100_000);
    listed.shardBy(first);
    for (String path : paths) {
      assertThat(listed.holds(path, 3)).as(path).contains(true);
    }
    assertThat(listed.holds(first.get(0), 3)).contains(false);
    assertThat(store.prefixes).hasSize(ListedFolders.MAX_SHARDS + 1).endsWith("");
    assertThat(store.prefixes.subList(0, 2)).containsExactly("00", "01");
  }

  @Test
  void aFolderOfManyFullShardsGoesOnBeingListedInShards() throws IOException {
    int shards = ListedFolders.MAX_SHARDS + 6;
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < shards * ListedFolders.SMALL_SHARD; i++) {
      paths.add(write(String.format("%02d%03d", i / ListedFolders.SMALL_SHARD, i % 100), 2));
    }
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      first.add(dir.resolve("data").resolve(String.format("%02dx%03d", i / 1000, i)).toString());
    }
    PrefixRecordingStore store = new PrefixRecordingStore();
    ListedFolders listed = new ListedFolders(store, 100_000);
    listed.shardBy(first);
    for (String path : paths) {
      assertThat(listed.holds(path, 2)).as(path).contains(true);
    }
    assertThat(store.prefixes).hasSize(shards).doesNotContain("");
  }
}
