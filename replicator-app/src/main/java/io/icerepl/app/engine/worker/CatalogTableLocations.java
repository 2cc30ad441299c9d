package io.icerepl.app.engine.worker;

import io.icerepl.merge.head.MetadataFileNames;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the tables of catalog rules live, as their catalogs said at their last run: an S3 event for
 * a metadata file under one of them triggers that table, whose head is then asked of its catalog. A
 * table not run yet is found by the next reconciliation instead.
 *
 * <p>A catalog writer puts its new {@code <V>-<uuid>.metadata.json} first (the event fires) and
 * moves the catalog's pointer after, so the event's run often finds the catalog still naming the
 * version before. The newest version an event announced is kept per key until the catalog names it
 * (or a later one), and the table is asked again after a short, growing wait, a bounded number of
 * times: without that, the commit would wait for the next event or reconciliation pass. A writer
 * that lost its commit leaves a version its catalog never names; the re-checks then stop.
 */
public final class CatalogTableLocations {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogTableLocations.class);

  /** The first wait before asking again; it doubles with each re-check. */
  static final Duration FIRST_RECHECK = Duration.ofMillis(20);

  /** The longest wait between two re-checks. */
  static final Duration LONGEST_RECHECK = Duration.ofSeconds(1);

  /** Re-checks of one announced version: about 5 s in all, as long as the default settle time. */
  static final int MOST_RECHECKS = 10;

  private final Map<String, List<TableKey>> byLocation = new ConcurrentHashMap<>();
  private final Map<TableKey, Announced> announced = new ConcurrentHashMap<>();

  /** The newest metadata version an event announced, and how often the catalog was asked since. */
  private record Announced(long version, int rechecks) {}

  /** Records where the catalog keeps the table of {@code keys} (one per target). */
  public void record(String location, List<TableKey> keys) {
    byLocation.put(trim(location), List.copyOf(keys));
  }

  /** The keys of the catalog table at or enclosing {@code location}; empty when none is known. */
  public List<TableKey> keysOf(String location) {
    String path = trim(location);
    return byLocation.entrySet().stream()
        .filter(e -> path.equals(e.getKey()) || path.startsWith(e.getKey() + "/"))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(List.of());
  }

  /**
   * An event announced metadata version {@code version} of the catalog table of {@code keys}. An
   * older version than one announced before changes nothing.
   */
  public void announced(List<TableKey> keys, long version) {
    for (TableKey key : keys) {
      announced.merge(
          key,
          new Announced(version, 0),
          (before, now) -> now.version() > before.version() ? now : before);
    }
  }

  /**
   * A run of {@code key} found its catalog naming {@code headFile}.
   *
   * @return when to ask the catalog again, for a newer version an event announced; empty once the
   *     catalog names it or a later one, or after {@link #MOST_RECHECKS} re-checks
   */
  public Optional<Duration> recheckIn(TableKey key, String headFile) {
    OptionalLong head = MetadataFileNames.version(headFile);
    Announced[] next = new Announced[1];
    announced.computeIfPresent(
        key,
        (k, awaited) -> {
          if (head.isEmpty() || head.getAsLong() >= awaited.version()) {
            return null;
          }
          if (awaited.rechecks() >= MOST_RECHECKS) {
            LOG.info(
                "{}: catalog still names {} after {} re-checks for version {} an event announced;"
                    + " left to the next event or reconciliation",
                k.table(),
                MetadataFileNames.fileName(headFile),
                awaited.rechecks(),
                awaited.version());
            return null;
          }
          next[0] = new Announced(awaited.version(), awaited.rechecks() + 1);
          return next[0];
        });
    if (next[0] == null) {
      return Optional.empty();
    }
    Duration wait = FIRST_RECHECK.multipliedBy(1L << Math.min(next[0].rechecks() - 1, 20));
    return Optional.of(wait.compareTo(LONGEST_RECHECK) > 0 ? LONGEST_RECHECK : wait);
  }

  private static String trim(String location) {
    String out = location;
    while (out.endsWith("/") && !out.endsWith("://")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }
}
