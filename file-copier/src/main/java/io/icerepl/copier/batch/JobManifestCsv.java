package io.icerepl.copier.batch;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Lines of an S3 Batch Operations CSV manifest ({@code S3BatchOperations_CSV_20180820}, fields
 * Bucket and Key): one object a line, its key URL-encoded as S3 requires, and the same encoding
 * read back from completion reports.
 */
public final class JobManifestCsv {
  private JobManifestCsv() {}

  /** The manifest line of one object, with its line end. */
  public static String line(String bucket, String key) {
    return bucket + "," + encode(key) + "\n";
  }

  /**
   * A key URL-encoded: a space as {@code %20} and a plus as {@code %2B}, so no reader takes one for
   * the other; slashes stay as they are, which every decoder reads alike.
   */
  public static String encode(String key) {
    return URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
  }

  /** A key as a manifest or a completion report spells it, decoded. */
  public static String decode(String encoded) {
    return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
  }
}
