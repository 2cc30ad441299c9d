package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A local file is confined to a prefix by where it really is, links resolved on both sides. */
class LocalObjectStoreLinksTest {
  @TempDir Path dir;

  private final LocalObjectStore store = new LocalObjectStore();

  @Test
  void aLinkLeadingOutOfThePrefixIsRefusedNamingTheFile() throws IOException {
    Path table = Files.createDirectories(dir.resolve("wh/t/data"));
    Path outside = Files.createDirectories(dir.resolve("etc"));
    Files.writeString(outside.resolve("hostname"), "host");
    Files.createSymbolicLink(table.resolve("lnk"), outside);
    String path = table.resolve("lnk/hostname").toString();

    assertThatThrownBy(() -> store.checkResolvesUnder(path, dir.resolve("wh/t").toString()))
        .isInstanceOf(BadInputException.class)
        .hasMessageStartingWith(
            "Cannot read file " + path + ": a symbolic link on its way leads out of ");
  }

  @Test
  void aLinkedWarehouseAndLinksInsideThePrefixAreItsOwn() throws IOException {
    Path real = Files.createDirectories(dir.resolve("mnt/wh/t/data/2026"));
    Files.writeString(real.resolve("f.parquet"), "rows");
    Files.createSymbolicLink(dir.resolve("wh"), dir.resolve("mnt/wh"));
    Files.createSymbolicLink(real.getParent().resolve("latest"), real);
    String root = dir.resolve("wh/t").toUri().toString();

    assertThatCode(
            () -> {
              store.checkResolvesUnder(dir.resolve("wh/t/data/2026/f.parquet").toString(), root);
              store.checkResolvesUnder(dir.resolve("wh/t/data/latest/f.parquet").toString(), root);
              store.checkResolvesUnder(dir.resolve("wh/t/data/missing.parquet").toString(), root);
            })
        .doesNotThrowAnyException();
  }
}
