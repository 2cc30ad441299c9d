package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableFoldersTest {

  @Test
  void restorePutsBackWhatWasSavedAndRemovesAFolderThatDidNotExist(@TempDir Path dir)
      throws Exception {
    Path original = dir.resolve("original");
    Path promoted = dir.resolve("promoted");
    Files.createDirectories(original.resolve("metadata"));
    Files.writeString(original.resolve("metadata/v1.metadata.json"), "one");
    Files.writeString(original.resolve("metadata/version-hint.text"), "1");
    Path saved = TableFolders.save(List.of(original, promoted), dir.resolve("saved"));

    // a command that ran to the end: it rewrote, added and created
    Files.writeString(original.resolve("metadata/version-hint.text"), "2");
    Files.writeString(original.resolve("metadata/v2.metadata.json"), "two");
    Files.delete(original.resolve("metadata/v1.metadata.json"));
    Files.createDirectories(promoted.resolve("data"));
    Files.writeString(promoted.resolve("data/a.parquet"), "rows");
    TableFolders.restore(List.of(original, promoted), saved);

    assertThat(original.resolve("metadata/v1.metadata.json")).hasContent("one");
    assertThat(original.resolve("metadata/version-hint.text")).hasContent("1");
    assertThat(original.resolve("metadata/v2.metadata.json")).doesNotExist();
    assertThat(promoted).doesNotExist();
  }
}
