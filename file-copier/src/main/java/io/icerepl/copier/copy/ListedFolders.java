package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which objects of a store's folders exist with a given length, from one listing per folder instead
 * of a request per object: a backfill asks this for every file it might copy, and a folder of a
 * thousand files costs one ListObjectsV2 page instead of a thousand HeadObjects.
 *
 * <p>A listed folder is held compactly: one 8-byte fingerprint of (name, length) per object,
 * sorted, so a million listed objects take 8 MB. Folders are listed lazily, when a file in them is
 * first asked about, and dropped least recently used beyond {@code maxObjects}; a folder holding
 * more objects than that on its own is not held, and the caller asks per object there. The
 * fingerprint is the first 64 bits of a SHA-256: a false "present" would need a collision of a name
 * and a length with another object's, about one chance in 2<sup>64</sup> divided by the folder's
 * size.
 *
 * <p>A listing shows the folder when it was taken: the caller asks only about files that no step of
 * its own plan writes, under the table's lease, so nothing it asks about changes meanwhile.
 */
final class ListedFolders {
  private static final Logger LOG = LoggerFactory.getLogger(ListedFolders.class);

  /** Objects held over all listed folders, at 8 bytes each. */
  static final int DEFAULT_MAX_OBJECTS = 4_000_000;

  private final ObjectStore store;
  private final int maxObjects;
  private final Map<String, Fingerprints> folders = new LinkedHashMap<>(16, 0.75f, true);
  private long held;
  private int listings;

  ListedFolders(ObjectStore store, int maxObjects) {
    this.store = store;
    this.maxObjects = maxObjects;
  }

  /**
   * Whether the object at {@code path} exists with exactly {@code length} bytes; empty when its
   * folder could not be listed within the bound, and the caller has to ask the store.
   */
  Optional<Boolean> holds(String path, long length) {
    int slash = path.lastIndexOf('/');
    if (slash < 0 || length < 0) {
      return Optional.empty();
    }
    Fingerprints folder = folder(path.substring(0, slash));
    return folder == null
        ? Optional.empty()
        : Optional.of(folder.contains(fingerprint(path.substring(slash + 1), length)));
  }

  /**
   * Records an object this plan puts in place, so a later question about it is answered "present"
   * though the listing predates it.
   */
  void added(String path, long length) {
    int slash = path.lastIndexOf('/');
    Fingerprints folder = slash < 0 ? null : folders.get(path.substring(0, slash));
    if (folder != null && length >= 0) {
      folder.add(fingerprint(path.substring(slash + 1), length));
      held++;
    }
  }

  /** Folder listings made so far (each may take several pages). */
  int listings() {
    return listings;
  }

  private Fingerprints folder(String folder) {
    Fingerprints listed = folders.get(folder);
    if (listed == null && !folders.containsKey(folder)) {
      listed = list(folder);
      folders.put(folder, listed); // null: too large or not listable, asked per file
    }
    return listed;
  }

  private Fingerprints list(String folder) {
    listings++;
    long[][] found = {new long[64]};
    int[] count = {0};
    try {
      store.listLengths(
          folder,
          (name, length) -> {
            if (count[0] > maxObjects) {
              return;
            }
            if (count[0] == found[0].length) {
              found[0] = Arrays.copyOf(found[0], Math.min(count[0] * 2, maxObjects + 1));
            }
            found[0][count[0]++] = fingerprint(name, length);
          });
    } catch (IOException | RuntimeException e) {
      LOG.debug("Cannot list {}, asking per file instead: {}", folder, e.toString());
      return null;
    }
    if (count[0] > maxObjects) {
      LOG.debug("{} holds more than {} objects, asking per file instead", folder, maxObjects);
      return null;
    }
    long[] sorted = Arrays.copyOf(found[0], count[0]);
    Arrays.sort(sorted);
    held += sorted.length;
    // The least recently asked folders go first; one asked about again is listed again.
    Iterator<Fingerprints> eldest = folders.values().iterator();
    while (held > maxObjects && eldest.hasNext()) {
      Fingerprints dropped = eldest.next();
      eldest.remove();
      if (dropped != null) {
        held -= dropped.size();
      }
    }
    return new Fingerprints(sorted);
  }

  /** The fingerprint of a name with a length: the name, a slash no name holds, the length. */
  static long fingerprint(String name, long length) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] digest = sha.digest((name + "/" + length).getBytes(StandardCharsets.UTF_8));
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (digest[i] & 0xff);
    }
    return value;
  }

  /**
   * The listed objects as a sorted array searched by bisection (8 bytes each); objects added since,
   * in an open-addressing hash set (16 bytes each at its load of a half at most).
   */
  private static final class Fingerprints {
    private final long[] listed;
    private long[] added = new long[16];
    private int addedCount;

    Fingerprints(long[] listed) {
      this.listed = listed;
    }

    boolean contains(long fingerprint) {
      long key = fingerprint == 0 ? 1 : fingerprint;
      for (int i = slot(key, added.length); added[i] != 0; i = (i + 1) & (added.length - 1)) {
        if (added[i] == key) {
          return true;
        }
      }
      return Arrays.binarySearch(listed, fingerprint) >= 0;
    }

    void add(long fingerprint) {
      if ((addedCount + 1) * 2 > added.length) {
        long[] old = added;
        added = new long[old.length * 2];
        addedCount = 0;
        for (long key : old) {
          if (key != 0) {
            insert(key);
          }
        }
      }
      insert(fingerprint == 0 ? 1 : fingerprint);
    }

    private void insert(long key) {
      int i = slot(key, added.length);
      while (added[i] != 0) {
        if (added[i] == key) {
          return;
        }
        i = (i + 1) & (added.length - 1);
      }
      added[i] = key;
      addedCount++;
    }

    private static int slot(long key, int capacity) {
      return (int) (key ^ (key >>> 32)) & (capacity - 1);
    }

    long size() {
      return listed.length + addedCount;
    }
  }
}
