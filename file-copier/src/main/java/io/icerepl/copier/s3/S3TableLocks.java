package io.icerepl.copier.s3;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.ConflictException;
import io.icerepl.merge.error.TableBusyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Table locks as lease objects: {@code <lockPrefix>/<sha256 of the table location>} in the table's
 * bucket, outside the table so that its readers and its retention never see them. S3 has no lock
 * that dies with its holder, so a lease carries an expiry, and an expired lease is taken over with
 * a write conditional on its ETag: of two runs taking over, one wins.
 */
final class S3TableLocks {
  private static final Logger LOG = LoggerFactory.getLogger(S3TableLocks.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Create, find released, create again: a lease that keeps vanishing means heavy contention. */
  private static final int MAX_TRIES = 3;

  private final S3Client client;
  private final S3Calls calls;
  private final S3StoreSettings settings;

  S3TableLocks(S3Client client, S3Calls calls, S3StoreSettings settings) {
    this.client = client;
    this.calls = calls;
    this.settings = settings;
  }

  /** The lease object of a table location. */
  S3Location leaseOf(String location) {
    S3Location table = S3Location.parse(location);
    return new S3Location(table.bucket(), settings.lockPrefix() + "/" + sha256(table.canonical()));
  }

  ObjectStore.Lock lock(String location) throws IOException {
    S3Location lease = leaseOf(location);
    long now = settings.clock().millis();
    long expiresAt = now + settings.lockTtl().toMillis();
    // A token per attempt: a create whose answer was lost (and retried into a 412) is recognised
    // as ours, where the owner alone could be another thread of the same process.
    String token = java.util.UUID.randomUUID().toString();
    byte[] body = leaseJson(settings.lockOwner(), token, expiresAt);
    for (int i = 0; i < MAX_TRIES; i++) {
      Optional<String> created = put(lease, body, "*", null);
      if (created.isPresent()) {
        return new Held(location, lease, created.get());
      }
      Optional<Lease> held = read(lease);
      if (held.isEmpty()) {
        continue;
      }
      if (token.equals(held.get().token())) {
        return new Held(location, lease, held.get().etag());
      }
      if (held.get().expiresAtMs() > now) {
        throw new TableBusyException("Cannot lock table " + location + ": another replication or "
            + "retention run holds it (owner " + held.get().owner() + ", until "
            + Instant.ofEpochMilli(held.get().expiresAtMs()) + ")");
      }
      Optional<String> taken = put(lease, body, null, held.get().etag());
      if (taken.isEmpty()) {
        Optional<Lease> after = read(lease);
        if (after.isPresent() && token.equals(after.get().token())) {
          return new Held(location, lease, after.get().etag());
        }
        throw new TableBusyException("Cannot lock table " + location + ": another run took over "
            + "the expired lease of " + held.get().owner() + " first");
      }
      LOG.info("{}: took over the lease of {}, expired at {}", location, held.get().owner(),
          Instant.ofEpochMilli(held.get().expiresAtMs()));
      return new Held(location, lease, taken.get());
    }
    throw new TableBusyException(
        "Cannot lock table " + location + ": its lease kept changing under " + MAX_TRIES + " tries");
  }

  /** Writes the lease under a condition; the new ETag, or empty when the condition failed. */
  private Optional<String> put(S3Location lease, byte[] body, String ifNoneMatch, String ifMatch)
      throws IOException {
    try {
      return Optional.of(calls.run("write lease", lease.toString(), lease, () -> client.putObject(
          b -> b.bucket(lease.bucket()).key(lease.key()).ifNoneMatch(ifNoneMatch).ifMatch(ifMatch)
              .contentType("application/json"),
          RequestBody.fromBytes(body))).eTag());
    } catch (NoSuchFileException e) {
      // If-Match on a lease released meanwhile: the condition failed like a 412.
      return Optional.empty();
    } catch (IOException e) {
      if (S3Calls.hasStatus(e, 412, 409)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private Optional<Lease> read(S3Location lease) throws IOException {
    ResponseBytes<GetObjectResponse> bytes;
    try {
      bytes = calls.run("read lease", lease.toString(), lease,
          () -> client.getObjectAsBytes(b -> b.bucket(lease.bucket()).key(lease.key())));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    JsonNode json;
    try {
      json = JSON.readTree(bytes.asByteArrayUnsafe());
    } catch (IOException e) {
      throw new IOException("Cannot read lease " + lease + ": not JSON", e);
    }
    if (!json.path("owner").isTextual() || !json.path("expires-at-ms").canConvertToLong()) {
      throw new IOException("Cannot read lease " + lease + ": no owner or expires-at-ms in " + json);
    }
    return Optional.of(new Lease(json.get("owner").asText(), json.path("token").asText(""),
        json.get("expires-at-ms").asLong(), bytes.response().eTag()));
  }

  private static byte[] leaseJson(String owner, String token, long expiresAtMs) {
    return JSON.createObjectNode().put("owner", owner).put("token", token).put("expires-at-ms", expiresAtMs)
        .toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Lease(String owner, String token, long expiresAtMs, String etag) {}

  private final class Held implements ObjectStore.Lock {
    private final String location;
    private final S3Location lease;
    private final String etag;
    private boolean released;

    Held(String location, S3Location lease, String etag) {
      this.location = location;
      this.lease = lease;
      this.etag = etag;
    }

    /**
     * Deletes the lease only while it is still the one written here: after it expired another run
     * may have taken it over, and deleting that would let a third run in beside it.
     */
    @Override
    public void close() throws IOException {
      if (released) {
        return;
      }
      released = true;
      Optional<Lease> now = read(lease);
      if (now.isEmpty() || !now.get().etag().equals(etag)) {
        LOG.warn("{}: lease expired and was taken over by {} before release", location,
            now.map(Lease::owner).orElse("nobody"));
        return;
      }
      calls.run("release lease", lease.toString(), lease,
          () -> client.deleteObject(b -> b.bucket(lease.bucket()).key(lease.key())));
    }
  }
}
