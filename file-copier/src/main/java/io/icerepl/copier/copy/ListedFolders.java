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
 * more objects than that on its own, or growing beyond it, is not held, and the caller asks per
 * object there. The fingerprint is the first 64 bits of a SHA-256: a false "present" would need a
 * collision of a name and a length with another object's, about one chance in 2<sup>64</sup>
 * divided by the folder's size.
 *
 * <p>A listing shows the folder when it was taken: the caller asks only about files that no step of
 * its own plan writes, under the table's lease, so nothing it asks about changes meanwhile.
 */
final class ListedFolders {
  private static final Logger LOG = LoggerFactory.getLogger(ListedFolders.class);

  /**
   * Objects held over all listed folders, at 8 bytes each: 4 MB, so a backfill's heap stays flat in
   * the table's files. A folder of more objects is asked per file.
   */
  static final int DEFAULT_MAX_OBJECTS = 500_000;

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
    String name = slash < 0 ? null : path.substring(0, slash);
    Fingerprints folder = name == null ? null : folders.get(name);
    if (folder == null || length < 0) {
      return;
    }
    if (held >= maxObjects) {
      // beyond the bound the folder is asked per file, which sees this file too
      folders.put(name, null);
      held -= folder.size();
      return;
    }
    folder.add(fingerprint(path.substring(slash + 1), length));
    held++;
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
   * The listed objects as a sorted array searched by bisection; the objects added since as a second
   * sorted array, with a short unsorted tail merged in when full. Eight bytes per object either
   * way.
   */
  private static final class Fingerprints {
    private static final int TAIL = 1024;
    private final long[] listed;
    private long[] added = new long[0];
    private final long[] tail = new long[TAIL];
    private int tailSize;

    Fingerprints(long[] listed) {
      this.listed = listed;
    }

    boolean contains(long fingerprint) {
      for (int i = 0; i < tailSize; i++) {
        if (tail[i] == fingerprint) {
          return true;
        }
      }
      return Arrays.binarySearch(listed, fingerprint) >= 0
          || Arrays.binarySearch(added, fingerprint) >= 0;
    }

    void add(long fingerprint) {
      tail[tailSize++] = fingerprint;
      if (tailSize < TAIL) {
        return;
      }
      Arrays.sort(tail);
      long[] merged = new long[added.length + TAIL];
      int a = 0;
      int t = 0;
      for (int m = 0; m < merged.length; m++) {
        merged[m] = t == TAIL || (a < added.length && added[a] <= tail[t]) ? added[a++] : tail[t++];
      }
      added = merged;
      tailSize = 0;
    }

    long size() {
      return listed.length + added.length + tailSize;
    }
  }
}
