package io.icerepl.app.engine.head;

import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.head.MetadataFileNames;
import io.icerepl.merge.path.TableLayout;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;

/**
 * What one listing of a table's metadata folder shows of its head: the metadata files and the
 * version hint, each with when it was last written, kept as a digest. The head is resolved from
 * exactly these, so a folder listed alike later has the same head, unless a file was then still
 * settling (callers keep a listing only for a head with nothing settling). Any new, removed or
 * rewritten metadata file or hint changes it.
 *
 * @param digest SHA-256 of the entries' names and times, in name order
 */
public record MetadataListing(String digest) {

  public static MetadataListing of(Collection<ObjectStore.Entry> entries) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest a metadata listing: " + e.getMessage(), e);
    }
    entries.stream()
        .filter(
            e ->
                MetadataFileNames.isMetadataFile(e.name())
                    || e.name().equals(TableLayout.VERSION_HINT))
        .sorted(Comparator.comparing(ObjectStore.Entry::name))
        .forEach(
            e ->
                sha.update(
                    (e.name() + '\n' + e.lastModifiedMs() + '\n')
                        .getBytes(StandardCharsets.UTF_8)));
    return new MetadataListing(HexFormat.of().formatHex(sha.digest()));
  }
}
