package io.icerepl.app.service.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.merge.path.TableLayout;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the metadata files an SQS message says were created, each with its table's location.
 * Understands S3 event notifications ({@code Records[].s3}, keys URL-encoded), EventBridge "Object
 * Created" events ({@code detail.bucket} / {@code detail.object}), and either wrapped in an SNS
 * notification. Only a new metadata file ({@code …/metadata/*.metadata.json}, compressed variants
 * included) or a version hint names a table: the location is the part before {@code /metadata/}.
 * Everything else (data files, other event types, S3's test event) names nothing. Events are only
 * triggers, so a key that is not a committed version (e.g. a losing writer's file) costs one no-op
 * run.
 *
 * <p>A message with more records than {@code maxRecords}, or naming a bucket or key with a control
 * or other invisible character, is refused ({@link RefusedEventException}).
 */
public final class EventParser {
  static final String METADATA_FOLDER = TableLayout.METADATA_FOLDER + "/";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int maxRecords;

  /**
   * @param maxRecords the most records one message may carry
   */
  public EventParser(int maxRecords) {
    this.maxRecords = maxRecords;
  }

  /**
   * A metadata file or version hint an event says was created.
   *
   * @param tableLocation the table it belongs to ({@code s3://bucket/prefix})
   * @param name its file name in the table's metadata folder
   */
  public record CreatedFile(String tableLocation, String name) {}

  /**
   * @return the metadata files and version hints the message names, in message order, without
   *     repeats
   * @throws IllegalArgumentException when the message is not JSON, or a record lacks its bucket or
   *     key
   * @throws RefusedEventException when it has too many records or names an unprintable key
   */
  public List<CreatedFile> createdFiles(String message) {
    JsonNode root;
    try {
      root = JSON.readTree(message);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "Cannot parse event message: not JSON (" + e.getOriginalMessage() + ")", e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("Cannot parse event message: expected a JSON object");
    }
    Set<CreatedFile> files = new LinkedHashSet<>();
    collect(root, files);
    return List.copyOf(files);
  }

  private void collect(JsonNode root, Set<CreatedFile> files) {
    if ("Notification".equals(root.path("Type").asText()) && root.path("Message").isTextual()) {
      files.addAll(createdFiles(root.path("Message").asText()));
    } else if (root.path("Records").isArray()) {
      int records = root.path("Records").size();
      if (records > maxRecords) {
        throw new RefusedEventException(
            RefusedEventException.Reason.TOO_MANY_RECORDS,
            "Cannot accept event message: it holds "
                + records
                + " records, more than the "
                + maxRecords
                + " allowed");
      }
      for (JsonNode record : root.path("Records")) {
        String eventName = record.path("eventName").asText("ObjectCreated");
        if (!eventName.startsWith("ObjectCreated")) {
          continue;
        }
        JsonNode s3 = record.path("s3");
        String bucket =
            printable(
                required(s3.path("bucket").path("name"), "Records[].s3.bucket.name"), "bucket");
        String key =
            printable(
                decode(required(s3.path("object").path("key"), "Records[].s3.object.key")), "key");
        createdFile(bucket, key).ifPresent(files::add);
      }
    } else if ("Object Created".equals(root.path("detail-type").asText())) {
      JsonNode detail = root.path("detail");
      String bucket =
          printable(required(detail.path("bucket").path("name"), "detail.bucket.name"), "bucket");
      String key =
          printable(required(detail.path("object").path("key"), "detail.object.key"), "key");
      createdFile(bucket, key).ifPresent(files::add);
    }
    // anything else, S3's {"Event":"s3:TestEvent"} included, names no table
  }

  /** A created object and its table, when the object is a metadata file or version hint. */
  private static Optional<CreatedFile> createdFile(String bucket, String key) {
    int slash = key.lastIndexOf('/');
    String name = key.substring(slash + 1);
    String folder = key.substring(0, slash + 1);
    boolean metadataFile =
        name.endsWith(".metadata.json")
            || name.endsWith(".metadata.json.gz")
            || name.equals(TableLayout.VERSION_HINT);
    if (!metadataFile
        || !(folder.equals(METADATA_FOLDER) || folder.endsWith("/" + METADATA_FOLDER))) {
      return Optional.empty();
    }
    String table = folder.substring(0, folder.length() - METADATA_FOLDER.length());
    String location = "s3://" + bucket + (table.isEmpty() ? "" : "/" + table);
    return Optional.of(
        new CreatedFile(
            location.endsWith("/") ? location.substring(0, location.length() - 1) : location,
            name));
  }

  /** S3 notifications URL-encode keys (a space as '+'). */
  private static String decode(String encoded) {
    try {
      return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new RefusedEventException(
          RefusedEventException.Reason.INVALID_KEY,
          "Cannot accept event message: key "
              + PrintableText.escape(encoded)
              + " is not URL-encoded");
    }
  }

  private static String printable(String value, String what) {
    if (!PrintableText.isPrintable(value)) {
      throw new RefusedEventException(
          RefusedEventException.Reason.INVALID_KEY,
          "Cannot accept event message: "
              + what
              + " "
              + PrintableText.escape(value)
              + " holds a control or invisible character");
    }
    return value;
  }

  private static String required(JsonNode node, String field) {
    if (!node.isTextual() || node.asText().isEmpty()) {
      throw new IllegalArgumentException("Cannot parse event message: " + field + " is missing");
    }
    return node.asText();
  }
}
