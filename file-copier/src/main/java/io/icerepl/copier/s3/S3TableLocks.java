package io.icerepl.copier.s3;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.copier.publish.ReplicaLayout;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.TableBusyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>A held lease is renewed every third of the TTL (a write conditional on its ETag), so a run
 * longer than the TTL keeps it and the TTL can be short: a killed run's lease frees its table soon.
 * Every change is conditional on the ETag this run wrote last, so a run never renews or releases a
 * lease another run took over.
 *
 * <p>The record carries the holding's fencing {@code epoch}: a take-over writes the expired
 * holder's epoch plus one with the conditional write that takes it, so of two holdings one after
 * the other the later one's epoch is larger. A created lease starts at 1; its holder raises it
 * above the epoch its replica's state records ({@link Held#raiseEpoch}) before it writes anything.
 */
final class S3TableLocks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(S3TableLocks.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The lease record's version: {@code lease-version}, absent from the records of releases before
   * it (which are version 1 too). A lease of a newer version is never taken over.
   */
  static final int LEASE_VERSION = 1;

  /** Create, find released, create again: a lease that keeps vanishing means heavy contention. */
  private static final int MAX_TRIES = 3;

  private final S3Client client;
  private final S3Calls calls;
  private final S3StoreSettings settings;
  private ScheduledExecutorService renewals;

  S3TableLocks(S3Client client, S3Calls calls, S3StoreSettings settings) {
    this.client = client;
    this.calls = calls;
    this.settings = settings;
  }

  /** The lease object of a table location. */
  S3Location leaseOf(String location) {
    S3Location table = S3Location.parse(location);
    return new S3Location(
        table.bucket(), ReplicaLayout.leaseKey(settings.lockPrefix(), table.canonical()));
  }

  ObjectStore.Lock lock(String location) throws IOException {
    Held held = take(location);
    long period = Math.max(1, settings.lockTtl().toMillis() / 3);
    held.renewal =
        renewals().scheduleAtFixedRate(held::renew, period, period, TimeUnit.MILLISECONDS);
    return held;
  }

  private Held take(String location) throws IOException {
    S3Location lease = leaseOf(location);
    long now = settings.clock().millis();
    long expiresAt = now + settings.lockTtl().toMillis();
    // A token per attempt: a create whose answer was lost (and retried into a 412) is recognised
    // as ours, where the owner alone could be another thread of the same process.
    String token = UUID.randomUUID().toString();
    for (int i = 0; i < MAX_TRIES; i++) {
      Optional<String> created =
          put(lease, leaseJson(settings.lockOwner(), token, expiresAt, 1), "*", null);
      if (created.isPresent()) {
        return new Held(location, lease, token, created.get(), expiresAt, 1);
      }
      Optional<Lease> held = read(lease);
      if (held.isEmpty()) {
        continue;
      }
      if (token.equals(held.get().token())) {
        return new Held(location, lease, token, held.get().etag(), expiresAt, held.get().epoch());
      }
      if (held.get().version() > LEASE_VERSION) {
        throw new TableBusyException(
            "Cannot lock table "
                + location
                + ": its lease, held by "
                + held.get().owner()
                + ", is lease-version "
                + held.get().version()
                + ", written by a newer release, and this release reads lease-version "
                + LEASE_VERSION
                + " at most; an upgraded instance takes the table");
      }
      if (held.get().expiresAtMs() > now) {
        throw new TableBusyException(
            "Cannot lock table "
                + location
                + ": locked by "
                + held.get().owner()
                + " until "
                + Instant.ofEpochMilli(held.get().expiresAtMs()));
      }
      long epoch = held.get().epoch() + 1;
      Optional<String> taken =
          put(
              lease,
              leaseJson(settings.lockOwner(), token, expiresAt, epoch),
              null,
              held.get().etag());
      if (taken.isEmpty()) {
        Optional<Lease> after = read(lease);
        if (after.isPresent() && token.equals(after.get().token())) {
          return new Held(location, lease, token, after.get().etag(), expiresAt, epoch);
        }
        throw new TableBusyException(
            "Cannot lock table "
                + location
                + ": another run took over "
                + "the expired lease of "
                + held.get().owner()
                + " first");
      }
      LOG.info(
          "{}: took over the lease of {} (fencing epoch {}), expired at {}",
          location,
          held.get().owner(),
          held.get().epoch(),
          Instant.ofEpochMilli(held.get().expiresAtMs()));
      return new Held(location, lease, token, taken.get(), expiresAt, epoch);
    }
    throw new TableBusyException(
        "Cannot lock table "
            + location
            + ": its lease kept changing under "
            + MAX_TRIES
            + " tries");
  }

  private synchronized ScheduledExecutorService renewals() {
    if (renewals == null) {
      renewals =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread thread = new Thread(r, "s3-lease-renewal");
                // a process that ends without releasing leaves its leases to expire
                thread.setDaemon(true);
                return thread;
              });
    }
    return renewals;
  }

  /** Stops renewing; leases still held expire by themselves. */
  @Override
  public synchronized void close() {
    if (renewals != null) {
      renewals.shutdownNow();
    }
  }

  /** Writes the lease under a condition; the new ETag, or empty when the condition failed. */
  private Optional<String> put(S3Location lease, byte[] body, String ifNoneMatch, String ifMatch)
      throws IOException {
    try {
      return Optional.of(
          calls
              .run(
                  "write lease",
                  lease.toString(),
                  lease,
                  () ->
                      client.putObject(
                          b ->
                              b.bucket(lease.bucket())
                                  .key(lease.key())
                                  .ifNoneMatch(ifNoneMatch)
                                  .ifMatch(ifMatch)
                                  .contentType("application/json"),
                          RequestBody.fromBytes(body)))
              .eTag());
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
      bytes =
          calls.run(
              "read lease",
              lease.toString(),
              lease,
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
      throw new IOException(
          "Cannot read lease " + lease + ": no owner or expires-at-ms in " + json);
    }
    JsonNode epoch = json.get("epoch");
    if (epoch != null && !(epoch.canConvertToLong() && epoch.asLong() >= 0)) {
      throw new IOException("Cannot read lease " + lease + ": epoch " + epoch + " is not an epoch");
    }
    JsonNode version = json.get("lease-version");
    if (version != null && !(version.canConvertToInt() && version.asInt() >= 1)) {
      throw new IOException(
          "Cannot read lease " + lease + ": lease-version " + version + " is not a version");
    }
    return Optional.of(
        new Lease(
            json.get("owner").asText(),
            json.path("token").asText(""),
            json.get("expires-at-ms").asLong(),
            version == null ? 1 : version.asInt(),
            epoch == null ? 0 : epoch.asLong(),
            bytes.response().eTag()));
  }

  /** A lease record; {@code epoch} is absent (0) from the records of releases before it. */
  private static byte[] leaseJson(String owner, String token, long expiresAtMs, long epoch) {
    return JSON.createObjectNode()
        .put("owner", owner)
        .put("token", token)
        .put("expires-at-ms", expiresAtMs)
        .put("epoch", epoch)
        .put("lease-version", LEASE_VERSION)
        .toString()
        .getBytes(StandardCharsets.UTF_8);
  }

  private record Lease(
      String owner, String token, long expiresAtMs, int version, long epoch, String etag) {}

  /** A lease this run wrote; its ETag and expiry follow each renewal. */
  final class Held implements ObjectStore.Lock {
    private final String location;
    private final S3Location lease;
    private final String token;
    private String etag;
    private long expiresAtMs;
    private long epoch;

    /** Who took the lease over once this run lost it; null while held. */
    private String lostTo;

    private boolean released;
    private volatile ScheduledFuture<?> renewal;

    Held(
        String location,
        S3Location lease,
        String token,
        String etag,
        long expiresAtMs,
        long epoch) {
      this.location = location;
      this.lease = lease;
      this.token = token;
      this.etag = etag;
      this.expiresAtMs = expiresAtMs;
      this.epoch = epoch;
    }

    @Override
    public synchronized long epoch() {
      return epoch;
    }

    /** Writes the raised epoch into the lease (If-Match on its ETag), renewing it with it. */
    @Override
    public synchronized long raiseEpoch(long floor, String action) throws IOException {
      if (floor <= epoch) {
        return epoch;
      }
      if (lostTo == null && !released) {
        rewrite(floor);
      }
      if (epoch < floor) {
        checkHeld(action);
        throw new IOException(
            "Cannot " + action + " of table " + location + ": the lease's epoch was not raised");
      }
      return epoch;
    }

    /** The scheduled renewal: a write conditional on the ETag, pushing the expiry one TTL ahead. */
    synchronized void renew() {
      if (released || lostTo != null) {
        return;
      }
      try {
        rewrite(epoch);
      } catch (IOException | RuntimeException e) {
        // the next renewal tries again; checkHeld fails once the lease has expired meanwhile
        LOG.warn(
            "{}: cannot renew the lease (expires at {}): {}",
            location,
            Instant.ofEpochMilli(expiresAtMs),
            e.getMessage());
      }
    }

    /** Rewrites the lease one TTL ahead with {@code newEpoch}, or finds it lost. */
    private void rewrite(long newEpoch) throws IOException {
      long expiry = settings.clock().millis() + settings.lockTtl().toMillis();
      Optional<String> written =
          put(lease, leaseJson(settings.lockOwner(), token, expiry, newEpoch), null, etag);
      if (written.isPresent()) {
        etag = written.get();
        expiresAtMs = expiry;
        epoch = newEpoch;
        return;
      }
      Optional<Lease> now = read(lease);
      if (now.isPresent() && token.equals(now.get().token())) {
        // a write of ours whose answer was lost, retried into a 412
        etag = now.get().etag();
        expiresAtMs = now.get().expiresAtMs();
        epoch = now.get().epoch();
        return;
      }
      lostTo = now.map(Lease::owner).orElse("nobody (the lease is gone)");
      LOG.warn(
          "{}: lease lost to {}; this run stops before its next change to the replica",
          location,
          lostTo);
      if (renewal != null) {
        renewal.cancel(false);
      }
    }

    /**
     * Confirms from the lease object itself that this run still holds it: its ETag is the one
     * written last, and it has not expired (an expired lease nobody took over is renewed here).
     */
    @Override
    public synchronized void checkHeld(String action) throws IOException {
      if (lostTo == null && settings.clock().millis() >= expiresAtMs) {
        renew();
      }
      if (lostTo == null) {
        Optional<Lease> now = read(lease);
        if (now.isEmpty() || !now.get().etag().equals(etag)) {
          lostTo = now.map(Lease::owner).orElse("nobody (the lease is gone)");
        }
      }
      if (lostTo != null) {
        throw new TableBusyException(
            "Cannot "
                + action
                + " of table "
                + location
                + ": its lease was lost to "
                + lostTo
                + " (this run's lease expired at "
                + Instant.ofEpochMilli(expiresAtMs)
                + ")");
      }
      if (settings.clock().millis() >= expiresAtMs) {
        throw new TableBusyException(
            "Cannot "
                + action
                + " of table "
                + location
                + ": its lease expired at "
                + Instant.ofEpochMilli(expiresAtMs)
                + " and could not be renewed");
      }
    }

    /**
     * Deletes the lease only while it is still the one written here (If-Match on its ETag): after
     * it expired another run may have taken it over, and deleting that would let a third run in.
     */
    @Override
    public void close() throws IOException {
      String written;
      synchronized (this) {
        if (released) {
          return;
        }
        released = true;
        if (renewal != null) {
          renewal.cancel(false);
        }
        if (lostTo != null) {
          LOG.warn("{}: lease was taken over by {}; left to it", location, lostTo);
          return;
        }
        written = etag;
      }
      // A run interrupted by a stopping service releases its lease too, so that another instance
      // takes the table at once rather than after the TTL; the SDK refuses to call from a thread
      // whose interrupt flag is set, so the flag is put aside for the one request and restored.
      boolean interrupted = Thread.interrupted();
      try {
        calls.run(
            "release lease",
            lease.toString(),
            lease,
            () ->
                client.deleteObject(
                    b -> b.bucket(lease.bucket()).key(lease.key()).ifMatch(written)));
      } catch (NoSuchFileException e) {
        // already gone: nothing to release
      } catch (IOException e) {
        if (!S3Calls.hasStatus(e, 412, 409)) {
          throw e;
        }
        LOG.warn(
            "{}: lease expired and was taken over before release; left to its new holder",
            location);
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
