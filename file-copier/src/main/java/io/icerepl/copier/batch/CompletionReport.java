package io.icerepl.copier.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.copier.store.ObjectStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an S3 Batch Operations completion report ({@code Report_CSV_20180820}) says: its {@code
 * manifest.json} names the result CSV files, whose lines read {@code Bucket, Key, VersionId,
 * TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage}.
 *
 * @param succeeded tasks reported succeeded
 * @param failed tasks reported failed
 * @param failuresByCode failed tasks by error code
 * @param firstFailed the first failed objects, as {@code s3://bucket/key}
 */
public record CompletionReport(
    long succeeded, long failed, Map<String, Long> failuresByCode, List<String> firstFailed) {

  /** Failed objects kept by name, for the log. */
  public static final int FAILED_KEPT = 5;

  private static final ObjectMapper JSON = new ObjectMapper();

  public CompletionReport {
    failuresByCode = Map.copyOf(failuresByCode);
    firstFailed = List.copyOf(firstFailed);
  }

  /**
   * Reads the report of job {@code jobId} written under {@code reportPath} ({@code
   * s3://bucket/prefix}), one result line at a time.
   *
   * @throws IOException when the report cannot be read ({@link java.nio.file.NoSuchFileException}
   *     when S3 wrote none: it writes none when no task ran)
   */
  public static CompletionReport read(ObjectStore store, String reportPath, String jobId)
      throws IOException {
    String manifest = reportPath + "/job-" + jobId + "/manifest.json";
    if (store.length(manifest).isEmpty()) {
      // asked first: reading a missing key may answer 403 where listing is scoped
      throw new NoSuchFileException(manifest);
    }
    JsonNode results;
    try (InputStream in = store.open(manifest)) {
      results = JSON.readTree(in).path("Results");
    }
    long succeeded = 0;
    long failed = 0;
    Map<String, Long> byCode = new TreeMap<>();
    List<String> first = new ArrayList<>();
    for (JsonNode result : results) {
      String path = "s3://" + result.path("Bucket").asText() + "/" + result.path("Key").asText();
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(store.open(path), StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          List<String> fields = fields(line);
          if (fields.size() < 4) {
            continue;
          }
          if (fields.get(3).equalsIgnoreCase("succeeded")) {
            succeeded++;
            continue;
          }
          failed++;
          byCode.merge(errorCode(fields), 1L, Long::sum);
          if (first.size() < FAILED_KEPT) {
            first.add("s3://" + fields.get(0) + "/" + JobManifestCsv.decode(fields.get(1)));
          }
        }
      }
    }
    return new CompletionReport(succeeded, failed, byCode, first);
  }

  /**
   * The error code of a failed task: the report's schema puts it before the HTTP status, but AWS's
   * own examples show it after, so the field that is not a number is taken.
   */
  private static String errorCode(List<String> fields) {
    for (int i = 4; i < Math.min(6, fields.size()); i++) {
      String field = fields.get(i);
      if (!field.isEmpty() && !field.chars().allMatch(Character::isDigit)) {
        return field;
      }
    }
    return "unknown";
  }

  /** The fields of one CSV line, quotes removed and doubled quotes read as one. */
  static List<String> fields(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }
}
