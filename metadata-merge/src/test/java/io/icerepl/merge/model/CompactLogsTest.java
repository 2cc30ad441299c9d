package io.icerepl.merge.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.merge.model.TableMetadata.LogEntry;
import io.icerepl.merge.model.TableMetadata.SnapshotLogEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When the logs are held as compact entries, and when as the tree they are. */
class CompactLogsTest {
  private static final ObjectMapper MAPPER = TableMetadataParser.mapper();

  /** One of the two readers. */
  private interface LogReader<T> {
    JsonNode read(ObjectMapper mapper, JsonParser parser, List<T> compact) throws IOException;
  }

  private static <T> JsonNode read(LogReader<T> reader, String log, List<T> compact)
      throws IOException {
    try (JsonParser parser = MAPPER.createParser(log)) {
      assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      return reader.read(MAPPER, parser, compact);
    }
  }

  /** The entries held compactly before the odd one are moved into the tree, not kept twice. */
  private static <T> void assertKeptAsTree(LogReader<T> reader, String log) throws IOException {
    List<T> compact = new ArrayList<>();
    assertThat(read(reader, log, compact)).hasToString(log);
    assertThat(compact).isEmpty();
  }

  @Test
  void entriesOfTheSpecsTwoFieldsAreHeldCompactly() throws IOException {
    List<SnapshotLogEntry> compact = new ArrayList<>();
    String log =
        "[{\"timestamp-ms\":10,\"snapshot-id\":1},{\"snapshot-id\":2,\"timestamp-ms\":20}]";

    assertThat(read(CompactLogs::readSnapshotLog, log, compact)).isSameAs(TableMetadata.COMPACT);
    assertThat(compact).containsExactly(new SnapshotLogEntry(10, 1), new SnapshotLogEntry(20, 2));
  }

  @Test
  void anEntryWithAnotherFieldKeepsTheWholeLogATree() throws IOException {
    assertKeptAsTree(
        CompactLogs::readSnapshotLog,
        "[{\"timestamp-ms\":10,\"snapshot-id\":1},{\"timestamp-ms\":20,\"snapshot-id\":2,\"x\":1},"
            + "{\"timestamp-ms\":30,\"snapshot-id\":3}]");
  }

  @Test
  void aMetadataLogEntryWhoseFileIsNoStringIsKeptAsItIs() throws IOException {
    assertKeptAsTree(
        CompactLogs::readMetadataLog,
        "[{\"timestamp-ms\":10,\"metadata-file\":\"s3://b/t/metadata/v1.metadata.json\"},"
            + "{\"timestamp-ms\":20,\"metadata-file\":2}]");
  }

  @Test
  void aMetadataLogOfTheSpecsFieldsIsHeldCompactly() throws IOException {
    List<LogEntry> compact = new ArrayList<>();
    String log = "[{\"timestamp-ms\":10,\"metadata-file\":\"v1.metadata.json\"}]";

    assertThat(read(CompactLogs::readMetadataLog, log, compact)).isSameAs(TableMetadata.COMPACT);
    assertThat(compact).containsExactly(new LogEntry(10, "v1.metadata.json"));
  }
}
