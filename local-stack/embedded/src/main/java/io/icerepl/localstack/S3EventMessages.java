package io.icerepl.localstack;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * S3 "ObjectCreated" event notifications as S3 sends them to SQS. The embedded S3 sends none, so
 * local runs and tests publish these themselves when a source commits.
 */
public final class S3EventMessages {
  private S3EventMessages() {}

  /** The message body S3 would send for a PUT of {@code key} (URL-encoded, as S3 encodes it). */
  public static String objectCreated(String bucket, String key, long size) {
    String encodedKey = URLEncoder.encode(key, StandardCharsets.UTF_8).replace("%2F", "/");
    return """
        {"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-east-1",\
        "eventTime":"%s","eventName":"ObjectCreated:Put",\
        "s3":{"s3SchemaVersion":"1.0","bucket":{"name":"%s","arn":"arn:aws:s3:::%s"},\
        "object":{"key":"%s","size":%d}}}]}"""
        .formatted(Instant.now(), bucket, bucket, encodedKey, size);
  }

  /** The same event as EventBridge delivers it ("Object Created", key not encoded). */
  public static String eventBridgeObjectCreated(String bucket, String key, long size) {
    return """
        {"version":"0","detail-type":"Object Created","source":"aws.s3","time":"%s",\
        "region":"us-east-1","detail":{"bucket":{"name":"%s"},"object":{"key":"%s","size":%d}}}"""
        .formatted(Instant.now(), bucket, key.replace("\"", "\\\""), size);
  }
}
