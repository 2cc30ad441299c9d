package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.LocalObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
