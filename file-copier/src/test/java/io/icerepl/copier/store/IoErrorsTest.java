package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JDK's file-system errors, met on real files, read as the file and what went wrong. */
class IoErrorsTest {
  @TempDir Path dir;

  @Test
  void aMissingFileSaysSoThoughItsMessageIsThePathAlone() {
    Path missing = dir.resolve("missing");
    IOException e = catchThrowableOfType(IOException.class, () -> Files.size(missing));

    assertThat(e.getMessage()).isEqualTo(missing.toString());
    assertThat(IoErrors.describe(e)).isEqualTo(missing + ": no such file or directory");
  }

  @Test
  void aFolderThatIsNotEmptySaysSo() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("folder"));
    Files.writeString(folder.resolve("file"), "x");
    IOException e = catchThrowableOfType(IOException.class, () -> Files.delete(folder));

    assertThat(IoErrors.describe(e)).isEqualTo(folder + ": directory not empty");
  }

  @Test
  void aReasonTheSystemGaveIsKept() throws IOException {
    Path file = Files.writeString(dir.resolve("file"), "x");
    IOException e =
        catchThrowableOfType(
            IOException.class, () -> Files.createDirectories(file.resolve("child")));

    assertThat(IoErrors.describe(e)).startsWith(file.toString()).containsIgnoringCase("directory");
  }

  @Test
  void anyOtherErrorIsItsMessageOrItsType() {
    assertThat(IoErrors.describe(new IOException("Connection reset")))
        .isEqualTo("Connection reset");
    assertThat(IoErrors.describe(new IOException())).isEqualTo("IOException");
  }

  @Test
  void aStoreErrorNamingTheSameVerbAndPathIsNotPrefixedAgain() {
    IOException s3 = new IOException("Cannot list s3://b/t/metadata: access denied (AccessDenied)");

    assertThat(IoErrors.cannot("list", "s3://b/t/metadata", s3))
        .isEqualTo("Cannot list s3://b/t/metadata: access denied (AccessDenied)");
    assertThat(IoErrors.cannot("list", "s3://b/t", s3))
        .isEqualTo(
            "Cannot list s3://b/t: Cannot list s3://b/t/metadata: access denied (AccessDenied)");
  }

  @Test
  void aFileSystemErrorAboutThePathItselfAddsOnlyItsReason() {
    Path missing = dir.resolve("missing");
    IOException e = catchThrowableOfType(IOException.class, () -> Files.size(missing));

    assertThat(IoErrors.cannot("list", missing.toString(), e))
        .isEqualTo("Cannot list " + missing + ": no such file or directory");
    assertThat(IoErrors.cannot("list", dir.toString(), e))
        .isEqualTo("Cannot list " + dir + ": " + missing + ": no such file or directory");
  }
}
