package io.icerepl.copier.copy;

import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
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
 * <p>A folder may be listed in shards, by the first characters of its names ({@link #shardBy}),
 * when the names asked about first show that this splits it: each shard is a listing of its own,
 * made when a name in it is first asked about. On S3 that is about as many pages as the whole
 * folder takes; a store that builds every page from the whole folder (the embedded S3 on a file
 * system does) then does its work per shard instead of per page. Once a folder has more than {@link
 * #MAX_SHARDS} shards holding fewer than {@link #SMALL_SHARD} objects on average, the rest of it is
 * listed whole, so names that share no prefix cost one listing more, not one per name.
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

  /** Shard listings of one folder before small ones have the rest of it listed whole. */
  static final int MAX_SHARDS = 64;

  /** Objects a shard holds on average, at least, for the folder to go on being listed in shards. */
  static final int SMALL_SHARD = 100;

  /**
   * A page of a listing: a folder is sharded when asked about twice this many names first, into
   * shards of half this many of those names or more ({@link #shardLength}).
   */
  static final int NAMES_PER_SHARD = 1000;

  private final ObjectStore store;
  private final int maxObjects;

  /**
   * Listings by folder, a slash and the name prefix they were made by (empty: the whole folder);
   * null for one too large or not listable.
   */
  private final Map<String, Fingerprints> folders = new LinkedHashMap<>(16, 0.75f, true);

  /** The length of the name prefix each folder is listed by; absent or 0: listed whole. */
  private final Map<String, Integer> shardLengths = new HashMap<>();

  /** Per folder listed in shards: the shards listed, and the objects they held. */
  private final Map<String, long[]> shardsListed = new HashMap<>();

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
    String name = path.substring(slash + 1);
    Fingerprints listed = listing(path.substring(0, slash), name);
    return listed == null
        ? Optional.empty()
        : Optional.of(listed.contains(fingerprint(name, length)));
  }

  /**
   * Chooses how the folders of {@code paths} not asked about before are listed, from these names:
   * by the longest name prefix that splits them into no more shards than one per half {@link
   * #NAMES_PER_SHARD} names. Half, because one more character splits the names tenfold or more:
   * 12,500 names numbered from 0 make 13 shards of about a page by two characters, but 2 of ten
   * pages each by one, and a store that builds each page from the whole shard (the embedded S3
   * does) pays ten times for those. A folder asked about fewer than twice {@link #NAMES_PER_SHARD}
   * names first is listed whole: a shard of it would be one listing more, not a page less.
   */
  void shardBy(Collection<String> paths) {
    Map<String, List<String>> names = new HashMap<>();
    for (String path : paths) {
      int slash = path.lastIndexOf('/');
      String folder = slash < 0 ? null : path.substring(0, slash);
      if (folder != null && !shardLengths.containsKey(folder)) {
        names.computeIfAbsent(folder, f -> new ArrayList<>()).add(path.substring(slash + 1));
      }
    }
    names.forEach((folder, inFolder) -> shardLengths.put(folder, shardLength(inFolder)));
  }

  static int shardLength(List<String> names) {
    List<String> sorted = new ArrayList<>(names);
    sorted.sort(null);
    if (sorted.size() < 2 * NAMES_PER_SHARD) {
      return 0;
    }
    int shards = 2 * sorted.size() / NAMES_PER_SHARD;
    int longest = sorted.stream().mapToInt(String::length).max().orElse(0);
    int length = 0;
    while (length < longest && distinctPrefixes(sorted, length + 1) <= shards) {
      length++;
    }
    return length;
  }

  private static int distinctPrefixes(List<String> sorted, int length) {
    int distinct = 0;
    String previous = null;
    for (String name : sorted) {
      String prefix = name.substring(0, Math.min(length, name.length()));
      if (!prefix.equals(previous)) {
        distinct++;
        previous = prefix;
      }
    }
    return distinct;
  }

  private String shardOf(String folder, String name) {
    int length = shardLengths.getOrDefault(folder, 0);
    return name.substring(0, Math.min(length, name.length()));
  }

  /**
   * Records an object this plan puts in place, so a later question about it is answered "present"
   * though the listing predates it.
   */
  void added(String path, long length) {
    int slash = path.lastIndexOf('/');
    if (slash < 0 || length < 0) {
      return;
    }
    String folder = path.substring(0, slash);
    String name = path.substring(slash + 1);
    String key = folder + "/" + shardOf(folder, name);
    Fingerprints listed = folders.get(key);
    if (listed == null) {
      return;
    }
    if (held >= maxObjects) {
      // beyond the bound the folder is asked per file, which sees this file too
      folders.put(key, null);
      held -= listed.size();
      return;
    }
    listed.add(fingerprint(name, length));
    held++;
  }

  /** Folder listings made so far (each may take several pages). */
  int listings() {
    return listings;
  }

  /** The listing that answers for {@code name} in {@code folder}, made when first needed. */
  private Fingerprints listing(String folder, String name) {
    String prefix = shardOf(folder, name);
    String key = folder + "/" + prefix;
    Fingerprints listed = folders.get(key);
    if (listed == null && !folders.containsKey(key)) {
      long[] shards =
          prefix.isEmpty() ? null : shardsListed.computeIfAbsent(folder, f -> new long[2]);
      if (shards != null && shards[0] >= MAX_SHARDS && shards[1] < shards[0] * SMALL_SHARD) {
        // names that share no prefix: the rest of the folder in one listing
        shardLengths.put(folder, 0);
        dropShards(folder);
        return listing(folder, name);
      }
      listed = list(folder, prefix);
      folders.put(key, listed); // null: too large or not listable, asked per file
      if (shards != null) {
        shards[0]++;
        shards[1] += listed == null ? maxObjects : listed.size();
      }
    }
    return listed;
  }

  private void dropShards(String folder) {
    Iterator<Map.Entry<String, Fingerprints>> each = folders.entrySet().iterator();
    while (each.hasNext()) {
      Map.Entry<String, Fingerprints> listed = each.next();
      String key = listed.getKey();
      if (key.startsWith(folder + "/") && key.indexOf('/', folder.length() + 1) < 0) {
        if (listed.getValue() != null) {
          held -= listed.getValue().size();
        }
        each.remove();
      }
    }
  }

  private Fingerprints list(String folder, String prefix) {
    listings++;
    long[][] found = {new long[64]};
    int[] count = {0};
    ObjectStore.LengthConsumer each =
        (name, length) -> {
          if (count[0] > maxObjects) {
            return;
          }
          if (count[0] == found[0].length) {
            found[0] = Arrays.copyOf(found[0], Math.min(count[0] * 2, maxObjects + 1));
          }
          found[0][count[0]++] = fingerprint(name, length);
        };
    try {
      if (prefix.isEmpty()) {
        store.listLengths(folder, each);
      } else {
        store.listLengths(folder, prefix, each);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("Cannot list {}/{}*, asking per file instead: {}", folder, prefix, e.toString());
      return null;
    }
    if (count[0] > maxObjects) {
      LOG.debug(
          "{}/{}* holds more than {} objects, asking per file instead", folder, prefix, maxObjects);
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
