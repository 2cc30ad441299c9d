package io.icerepl.copier.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icerepl.copier.store.ObjectStore.ObjectVersion;
import io.icerepl.copier.store.ObjectStore.VersionedObject;
import io.icerepl.merge.error.TableBusyException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table locks as lease objects, on any {@link ObjectStore} with conditional writes: one object per
 * table location, at the path {@link LeasePath} gives (on S3, {@code <lockPrefix>/<sha256 of the
 * table location>} in the table's bucket, outside the table so that its readers and its retention
 * never see them). An object store has no lock that dies with its holder, so a lease carries an
 * expiry, and an expired lease is taken over with a write conditional on its version: of two runs
 * taking over, one wins.
 *
 * <p>A held lease is renewed every third of the TTL (a write conditional on its version), so a run
 * longer than the TTL keeps it and the TTL can be short: a killed run's lease frees its table soon.
 * Every change is conditional on the version this run wrote last, so a run never renews or releases
 * a lease another run took over.
 *
 * <p>The record carries the holding's fencing {@code epoch}: a take-over writes the expired
 * holder's epoch plus one with the conditional write that takes it, so of two holdings one after
 * the other the later one's epoch is larger. A created lease starts at 1; its holder raises it
 * above the epoch its replica's state records ({@link Held#raiseEpoch}) before it writes anything.
 *
 * <p>Only {@link ObjectStore#readVersioned}, {@link ObjectStore#replaceIf} and {@link
 * ObjectStore#deleteIf} of the store are used, so whatever a store wraps its requests in (retries,
 * throttling) applies to the lease's requests too. A store takes its locks from here in one line:
 * {@code new LeaseLocks(this, settings, (prefix, location) -> leaseObjectOf(prefix, location))}.
 */
public final class LeaseLocks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseLocks.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The lease record's version: {@code lease-version}, absent from the records of releases before
   * it (which are version 1 too). A lease of a newer version is never taken over.
   */
  public static final int LEASE_VERSION = 1;

  /** Create, find released, create again: a lease that keeps vanishing means heavy contention. */
  private static final int MAX_TRIES = 3;

  /**
   * How leases are written.
   *
   * @param lockPrefix where lease objects live, as the store's {@link LeasePath} places it
   * @param owner names this process in a lease, for whoever finds the table locked
   * @param ttl how long a lease holds unless renewed (every third of it, while its run goes on); a
   *     lease past it is taken over (its holder is presumed dead)
   * @param clock decides when a lease expires
   */
  public record Settings(String lockPrefix, String owner, Duration ttl, Clock clock) {
    public Settings {
      Objects.requireNonNull(lockPrefix, "lockPrefix");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(ttl, "ttl");
      Objects.requireNonNull(clock, "clock");
      if (ttl.isNegative() || ttl.isZero()) {
        throw new IllegalArgumentException("Cannot use lock TTL " + ttl + ": not positive");
      }
    }
  }

  /** The path of a table location's lease object in the store, under the lock prefix. */
  @FunctionalInterface
  public interface LeasePath {
    String of(String lockPrefix, String location);
  }

  private final ObjectStore store;
  private final Settings settings;
  private final LeasePath leasePath;
  private ScheduledExecutorService renewals;

  /**
   * Leases in {@code store}, which may be the store that takes its locks from here: nothing is
   * asked of it until the first {@link #lock}.
   */
  public LeaseLocks(ObjectStore store, Settings settings, LeasePath leasePath) {
    this.store = Objects.requireNonNull(store, "store");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.leasePath = Objects.requireNonNull(leasePath, "leasePath");
  }

  /** The lease object of a table location. */
  public String leasePath(String location) {
    return leasePath.of(settings.lockPrefix(), location);
  }

  /**
   * Takes the lease of {@code location}, renewed every third of the TTL until the lock is closed.
   *
   * @throws TableBusyException when another run holds it
   */
  public ObjectStore.Lock lock(String location) throws IOException {
    Held held = take(location);
    long period = Math.max(1, settings.ttl().toMillis() / 3);
    held.renewal =
        renewals().scheduleAtFixedRate(held::renew, period, period, TimeUnit.MILLISECONDS);
    return held;
  }

  private Held take(String location) throws IOException {
    String lease = leasePath(location);
    long now = settings.clock().millis();
    long expiresAt = now + settings.ttl().toMillis();
    // A token per attempt: a create whose answer was lost (and retried into a 412) is recognised
    // as ours, where the owner alone could be another thread of the same process.
    String token = UUID.randomUUID().toString();
    for (int i = 0; i < MAX_TRIES; i++) {
      Optional<ObjectVersion> created =
          store.replaceIf(
              lease, Optional.empty(), leaseJson(settings.owner(), token, expiresAt, 1));
      if (created.isPresent()) {
        return new Held(location, lease, token, created.get(), expiresAt, 1);
      }
      Optional<Lease> held = read(lease);
      if (held.isEmpty()) {
        continue;
      }
      if (token.equals(held.get().token())) {
        return new Held(
            location, lease, token, held.get().version(), expiresAt, held.get().epoch());
      }
      if (held.get().leaseVersion() > LEASE_VERSION) {
        throw new TableBusyException(
            "Cannot lock table "
                + location
                + ": its lease, held by "
                + held.get().owner()
                + ", is lease-version "
                + held.get().leaseVersion()
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
      Optional<ObjectVersion> taken =
          store.replaceIf(
              lease,
              Optional.of(held.get().version()),
              leaseJson(settings.owner(), token, expiresAt, epoch));
      if (taken.isEmpty()) {
        Optional<Lease> after = read(lease);
        if (after.isPresent() && token.equals(after.get().token())) {
          return new Held(location, lease, token, after.get().version(), expiresAt, epoch);
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
                Thread thread = new Thread(r, "lease-renewal");
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

  private Optional<Lease> read(String lease) throws IOException {
    Optional<VersionedObject> read = store.readVersioned(lease);
    if (read.isEmpty()) {
      return Optional.empty();
    }
    JsonNode json;
    try {
      json = JSON.readTree(read.get().content());
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
            read.get().version()));
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

  /** A lease record as read, with the store's version of the object that holds it. */
  private record Lease(
      String owner,
      String token,
      long expiresAtMs,
      int leaseVersion,
      long epoch,
      ObjectVersion version) {}

  /** A lease this run wrote; its version and expiry follow each renewal. */
  final class Held implements ObjectStore.Lock {
    private final String location;
    private final String lease;
    private final String token;
    private ObjectVersion written;
    private long expiresAtMs;
    private long epoch;

    /** Who took the lease over once this run lost it; null while held. */
    private String lostTo;

    private boolean released;
    private volatile ScheduledFuture<?> renewal;

    Held(
        String location,
        String lease,
        String token,
        ObjectVersion written,
        long expiresAtMs,
        long epoch) {
      this.location = location;
      this.lease = lease;
      this.token = token;
      this.written = written;
      this.expiresAtMs = expiresAtMs;
      this.epoch = epoch;
    }

    @Override
    public synchronized long epoch() {
      return epoch;
    }

    /** Writes the raised epoch into the lease (conditional on its version), renewing it with it. */
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

    /** The scheduled renewal: a conditional write, pushing the expiry one TTL ahead. */
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
      long expiry = settings.clock().millis() + settings.ttl().toMillis();
      Optional<ObjectVersion> rewritten =
          store.replaceIf(
              lease, Optional.of(written), leaseJson(settings.owner(), token, expiry, newEpoch));
      if (rewritten.isPresent()) {
        written = rewritten.get();
        expiresAtMs = expiry;
        epoch = newEpoch;
        return;
      }
      Optional<Lease> now = read(lease);
      if (now.isPresent() && token.equals(now.get().token())) {
        // a write of ours whose answer was lost, retried into a 412
        written = now.get().version();
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
     * Confirms from the lease object itself that this run still holds it: its version is the one
     * written last, and it has not expired (an expired lease nobody took over is renewed here).
     */
    @Override
    public synchronized void checkHeld(String action) throws IOException {
      if (lostTo == null && settings.clock().millis() >= expiresAtMs) {
        renew();
      }
      if (lostTo == null) {
        Optional<Lease> now = read(lease);
        if (now.isEmpty() || !now.get().version().equals(written)) {
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
     * Deletes the lease only while it is still the one written here (conditional on its version):
     * after it expired another run may have taken it over, and deleting that would let a third run
     * in.
     */
    @Override
    public void close() throws IOException {
      ObjectVersion last;
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
        last = written;
      }
      // A run interrupted by a stopping service releases its lease too, so that another instance
      // takes the table at once rather than after the TTL; a client may refuse to call from a
      // thread whose interrupt flag is set (the AWS SDK does), so the flag is put aside for the
      // release and restored.
      boolean interrupted = Thread.interrupted();
      try {
        if (store.deleteIf(lease, last)) {
          return;
        }
        // Gone already: nothing to release. Still there: another run's lease now.
        boolean taken;
        try {
          taken = store.readVersioned(lease).isPresent();
        } catch (IOException e) {
          taken = true;
        }
        if (taken) {
          LOG.warn(
              "{}: lease expired and was taken over before release; left to its new holder",
              location);
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
