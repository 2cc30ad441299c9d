package io.icerepl.copier.batch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JobManifestCsvTest {
  @Test
  void keysAreUrlEncodedSoASpaceAndAPlusStayApart() {
    assertThat(JobManifestCsv.line("source", "wh/t/data/a b+c/x=1%2F.parquet"))
        .isEqualTo("source,wh/t/data/a%20b%2Bc/x%3D1%252F.parquet\n");
    assertThat(JobManifestCsv.encode("wh/t/data/comma,é.parquet"))
        .isEqualTo("wh/t/data/comma%2C%C3%A9.parquet");
  }

  @Test
  void decodingReadsBackWhatEncodingWrote() {
    for (String key : new String[] {"a b+c/%2B/, é.parquet", "plain/key.avro", "+ +"}) {
      assertThat(JobManifestCsv.decode(JobManifestCsv.encode(key))).isEqualTo(key);
    }
  }
}
