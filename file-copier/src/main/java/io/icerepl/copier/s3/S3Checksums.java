package io.icerepl.copier.s3;

import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The checksums of a whole object a HeadObject reports: the MD5 an ETag is when S3 computed it from
 * the content (a single-part object, not encrypted with KMS or a customer key), and the additional
 * checksums of the whole object (not the composite ones of a multipart upload, which depend on its
 * part sizes).
 */
final class S3Checksums {
  private S3Checksums() {}

  static Map<String, String> of(HeadObjectResponse head) {
    Map<String, String> checksums = new LinkedHashMap<>();
    String etag = head.eTag() == null ? "" : head.eTag().replace("\"", "");
    boolean contentEtag =
        !etag.isEmpty()
            && !etag.contains("-")
            && head.sseCustomerAlgorithm() == null
            && (head.serverSideEncryption() == null
                || head.serverSideEncryptionAsString().equals("AES256"));
    if (contentEtag) {
      checksums.put("MD5", etag);
    }
    if (head.checksumType() != ChecksumType.COMPOSITE) {
      putWhole(checksums, "CRC32", head.checksumCRC32());
      putWhole(checksums, "CRC32C", head.checksumCRC32C());
      putWhole(checksums, "CRC64NVME", head.checksumCRC64NVME());
      putWhole(checksums, "SHA1", head.checksumSHA1());
      putWhole(checksums, "SHA256", head.checksumSHA256());
    }
    return checksums;
  }

  private static void putWhole(Map<String, String> checksums, String algorithm, String value) {
    // a composite checksum ends in -<parts> even where the response names no checksum type
    if (value != null && !value.contains("-")) {
      checksums.put(algorithm, value);
    }
  }
}
