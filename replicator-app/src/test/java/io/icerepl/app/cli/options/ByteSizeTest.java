package io.icerepl.app.cli.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizeTest {

  @Test
  void sizesTakeUnits() {
    assertThat(ByteSize.parse("268435456")).isEqualTo(268_435_456L);
    assertThat(ByteSize.parse("256MiB")).isEqualTo(256L << 20);
    assertThat(ByteSize.parse("1 TiB")).isEqualTo(1L << 40);
    assertThat(ByteSize.parse("512mb")).isEqualTo(512L << 20);
    assertThatThrownBy(() -> ByteSize.parse("lots"))
        .hasMessageContaining("Cannot read size 'lots'");
  }
}
