package io.icerepl.merge.rewrite;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.error.UnsupportedFeatureException;
import io.icerepl.merge.io.ByteArraySeekableInput;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PositionDeleteFormatTest {
  private static final ByteArraySeekableInput ANY = new ByteArraySeekableInput(new byte[] {1, 2, 3});

  @ParameterizedTest
  @ValueSource(strings = {"ORC", "orc"})
  void orcPositionDeletesAreUnsupported(String format) {
    assertThatThrownBy(
            () ->
                PositionDeleteRewriter.rewrite(
                    format, ANY, new ByteArrayOutputStream(), "s3://b/t/d.orc", p -> p))
        .isExactlyInstanceOf(UnsupportedFeatureException.class)
        .hasMessage(
            "Cannot rewrite position delete file s3://b/t/d.orc: ORC position deletes are not supported");
    assertThatThrownBy(() -> PositionDeleteRewriter.describe(format, ANY, "s3://b/t/d.orc"))
        .isExactlyInstanceOf(UnsupportedFeatureException.class);
  }

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
  void garbageIsBadInputForBothFormats() {
    for (String format : new String[] {"PARQUET", "AVRO"}) {
      assertThatThrownBy(
              () ->
                  PositionDeleteRewriter.rewrite(
                      format, ANY, new ByteArrayOutputStream(), "garbage." + format, p -> p))
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read position delete file garbage." + format + ": ");
      assertThatThrownBy(() -> PositionDeleteRewriter.describe(format, ANY, "garbage." + format))
          .isInstanceOf(BadInputException.class)
          .hasMessageStartingWith("Cannot read position delete file garbage." + format + ": ");
    }
  }
}
