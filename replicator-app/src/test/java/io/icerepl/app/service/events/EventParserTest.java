package io.icerepl.app.service.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.app.service.events.EventParser.CreatedFile;
import io.icerepl.localstack.S3EventMessages;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventParserTest {
  private final EventParser parser = new EventParser(3);

  @Test
  void anS3NotificationNamesTheTableOfANewMetadataFileWithItsKeyUrlDecoded() {
    String message =
        S3EventMessages.objectCreated(
            "src", "wh/sales db/order+items/metadata/00003-ab.metadata.json", 10);
    assertThat(message).contains("sales+db/order%2Bitems");
    assertThat(parser.createdFiles(message))
        .containsExactly(
            new CreatedFile("s3://src/wh/sales db/order+items", "00003-ab.metadata.json"));
  }

  @Test
  void eachCreatedMetadataFileIsNamedWithItsTable() {
    String message =
        """
        {"Records":[\
        {"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},\
        "object":{"key":"wh/t/metadata/00004-ab.metadata.json"}}},\
        {"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},\
        "object":{"key":"wh/t/data/f.parquet"}}},\
        {"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},\
        "object":{"key":"wh/t/metadata/00005-cd.metadata.json"}}}]}""";
    assertThat(parser.createdFiles(message))
        .containsExactly(
            new CreatedFile("s3://b/wh/t", "00004-ab.metadata.json"),
            new CreatedFile("s3://b/wh/t", "00005-cd.metadata.json"));
  }

  @Test
  void aPlusInAnEncodedKeyIsASpace() {
    String message =
        """
        {"Records":[{"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},\
        "object":{"key":"wh/my+table/metadata/v2.metadata.json"}}}]}""";
    assertThat(parser.createdFiles(message))
        .containsExactly(new CreatedFile("s3://b/wh/my table", "v2.metadata.json"));
  }

  @Test
  void anEventBridgeObjectCreatedEventNamesItsTable() {
    String message =
        S3EventMessages.eventBridgeObjectCreated(
            "src", "wh/ns/t1/metadata/v5.gz.metadata.json", 10);
    assertThat(parser.createdFiles(message))
        .containsExactly(new CreatedFile("s3://src/wh/ns/t1", "v5.gz.metadata.json"));
  }

  @Test
  void compressedMetadataAndTheVersionHintNameTheirTable() {
    assertThat(
            parser.createdFiles(
                S3EventMessages.objectCreated("b", "ns/t/metadata/v1.metadata.json.gz", 1)))
        .containsExactly(new CreatedFile("s3://b/ns/t", "v1.metadata.json.gz"));
    assertThat(
            parser.createdFiles(
                S3EventMessages.objectCreated("b", "ns/t/metadata/version-hint.text", 1)))
        .containsExactly(new CreatedFile("s3://b/ns/t", "version-hint.text"));
  }

  @Test
  void dataFilesAndOtherMetadataFilesNameNothing() {
    assertThat(
            parser.createdFiles(S3EventMessages.objectCreated("b", "ns/t/data/x=1/f.parquet", 1)))
        .isEmpty();
    assertThat(
            parser.createdFiles(
                S3EventMessages.objectCreated("b", "ns/t/metadata/snap-1-1-a.avro", 1)))
        .isEmpty();
    assertThat(
            parser.createdFiles(
                S3EventMessages.objectCreated("b", "ns/t/metadata/.v1.metadata.json.crc", 1)))
        .isEmpty();
    assertThat(
            parser.createdFiles(
                S3EventMessages.objectCreated("b", "ns/t/meta/v1.metadata.json", 1)))
        .isEmpty();
  }

  @Test
  void removalEventsNameNothing() {
    String message =
        """
        {"Records":[{"eventName":"ObjectRemoved:Delete","s3":{"bucket":{"name":"b"},\
        "object":{"key":"ns/t/metadata/v2.metadata.json"}}}]}""";
    assertThat(parser.createdFiles(message)).isEmpty();
  }

  @Test
  void theS3TestEventIsIgnored() {
    String message =
        """
        {"Service":"Amazon S3","Event":"s3:TestEvent","Time":"2026-01-01T00:00:00.000Z","Bucket":"b",\
        "RequestId":"r","HostId":"h"}""";
    assertThat(parser.createdFiles(message)).isEmpty();
  }

  @Test
  void anEventWrappedInAnSnsNotificationIsUnwrapped() {
    String inner = S3EventMessages.objectCreated("b", "ns/t/metadata/v9.metadata.json", 1);
    String message = "{\"Type\":\"Notification\",\"Message\":" + quote(inner) + "}";
    assertThat(parser.createdFiles(message))
        .containsExactly(new CreatedFile("s3://b/ns/t", "v9.metadata.json"));
  }

  @Test
  void malformedJsonIsRefused() {
    assertThatThrownBy(() -> parser.createdFiles("{\"Records\": ["))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse event message: not JSON");
  }

  @Test
  void aRecordWithoutItsKeyIsRefused() {
    assertThatThrownBy(
            () -> parser.createdFiles("{\"Records\":[{\"s3\":{\"bucket\":{\"name\":\"b\"}}}]}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot parse event message: Records[].s3.object.key is missing");
  }

  @Test
  void aMessageWithMoreRecordsThanAllowedIsRefused() {
    String record =
        """
        {"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"ns/t/metadata/v1.metadata.json"}}}""";
    assertThat(
            parser.createdFiles("{\"Records\":[" + String.join(",", record, record, record) + "]}"))
        .containsExactly(new CreatedFile("s3://b/ns/t", "v1.metadata.json"));
    assertThatThrownBy(
            () ->
                parser.createdFiles(
                    "{\"Records\":[" + String.join(",", record, record, record, record) + "]}"))
        .isInstanceOfSatisfying(
            RefusedEventException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusedEventException.Reason.TOO_MANY_RECORDS))
        .hasMessage("Cannot accept event message: it holds 4 records, more than the 3 allowed");
  }

  @Test
  void keysWithControlOrInvisibleCharactersAreRefusedAndShownEscaped() throws Exception {
    assertThatThrownBy(
            () ->
                parser.createdFiles(
                    S3EventMessages.objectCreated(
                        "b", "ns/t\n12:00:00 INFO forged/metadata/v1.metadata.json", 1)))
        .isInstanceOfSatisfying(
            RefusedEventException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusedEventException.Reason.INVALID_KEY))
        .hasMessage(
            "Cannot accept event message: key ns/t\\u000a12:00:00 INFO forged/metadata/v1.metadata.json holds"
                + " a control or invisible character");
    for (String key :
        new String[] {
          "ns/t\r/metadata/v1.metadata.json",
          "ns/t\u202e/metadata/v1.metadata.json",
          "ns/t\u2028/metadata/v1.metadata.json",
          "ns/t\u001b[31m/metadata/v1.metadata.json"
        }) {
      assertThatThrownBy(() -> parser.createdFiles(S3EventMessages.objectCreated("b", key, 1)))
          .as(PrintableText.escape(key))
          .isInstanceOf(RefusedEventException.class)
          .message()
          .doesNotContain(key.substring(4, 5));
      String eventBridge =
          new ObjectMapper()
              .writeValueAsString(
                  Map.of(
                      "detail-type",
                      "Object Created",
                      "detail",
                      Map.of("bucket", Map.of("name", "b"), "object", Map.of("key", key))));
      assertThatThrownBy(() -> parser.createdFiles(eventBridge))
          .as(PrintableText.escape(key))
          .isInstanceOf(RefusedEventException.class);
    }
  }

  @Test
  void aKeyThatIsNotUrlEncodedOrNotUtf8IsRefused() {
    for (String key :
        new String[] {"ns/t%zz/metadata/v1.metadata.json", "ns/t%ff/metadata/v1.metadata.json"}) {
      String message =
          "{\"Records\":[{\"eventName\":\"ObjectCreated:Put\",\"s3\":{\"bucket\":{\"name\":\"b\"},"
              + "\"object\":{\"key\":\""
              + key
              + "\"}}}]}";
      assertThatThrownBy(() -> parser.createdFiles(message))
          .as(key)
          .isInstanceOf(RefusedEventException.class);
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
