package io.icerepl.merge.deletes;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.io.ByteArraySeekableInput;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class PositionDeleteFormatTest {
  private static final ByteArraySeekableInput ANY =
      new ByteArraySeekableInput(new byte[] {1, 2, 3});

  @Test
  void unknownFileFormatIsBadInput() {
    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    "CSV", ANY, new ByteArrayOutputStream(), "d.csv", p -> p))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("d.csv")
        .hasMessageContaining("CSV");
  }

  @Test
  void garbageIsBadInputForEveryFormat() {
    for (String format : new String[] {"PARQUET", "AVRO", "ORC"}) {
      assertThatThrownBy(
              () ->
                  PositionDeleteRewriter.rewrite(
                      format, ANY, new ByteArrayOutputStream(), "garbage." + format, p -> p))
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read position delete file garbage." + format + ": ");
      assertThatThrownBy(
              () ->
                  PositionDeleteRewriter.forEachFilePath(format, ANY, "garbage." + format, p -> {}))
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read position delete file garbage." + format + ": ");
      assertThatThrownBy(() -> PositionDeleteRewriter.describe(format, ANY, "garbage." + format))
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read position delete file garbage." + format + ": ");
    }
  }
}
