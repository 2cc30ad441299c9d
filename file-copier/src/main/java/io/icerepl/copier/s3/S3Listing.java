package io.icerepl.copier.s3;

import io.icerepl.copier.store.ObjectStore.Entry;
import io.icerepl.copier.store.ObjectStore.LengthConsumer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Listings of {@link S3ObjectStore}: the names, lengths and folders directly under a folder, page
 * by page (ListObjectsV2 with a delimiter), and the listing of one key that tells a missing object
 * from a forbidden one.
 */
record S3Listing(S3Client client, S3Calls calls, S3StoreSettings settings) {

  /**
   * S3 answers 403 instead of 404 for a missing key when the caller may list the bucket only under
   * a prefix (a least-privilege role): a listing of the key itself tells missing from forbidden.
   */
  OptionalLong listedLength(String path, S3Location at, IOException forbidden) throws IOException {
    ListObjectsV2Response listing;
    try {
      listing =
          calls.run(
              "list",
              path,
              at,
              () -> client.listObjectsV2(b -> b.bucket(at.bucket()).prefix(at.key()).maxKeys(1)));
    } catch (IOException e) {
      forbidden.addSuppressed(e);
      throw forbidden;
    }
    return listing.contents().stream()
        .filter(o -> o.key().equals(at.key()))
        .mapToLong(o -> o.size())
        .findFirst();
  }

  List<String> list(String folder) throws IOException {
    return listEntries(folder).stream().map(Entry::name).toList();
  }

  List<Entry> listEntries(String folder) throws IOException {
    List<Entry> entries = new ArrayList<>();
    listing(
        folder,
        page -> {
          String prefix = page.prefix();
          for (S3Object object : page.contents()) {
            // A zero-byte "folder/" marker written by consoles is the folder itself, not a file.
            if (object.key().length() > prefix.length()) {
              entries.add(
                  new Entry(
                      object.key().substring(prefix.length()),
                      object.lastModified().toEpochMilli()));
            }
          }
        });
    entries.sort(Comparator.comparing(Entry::name));
    return entries;
  }

  void listLengths(String folder, LengthConsumer each) throws IOException {
    listLengths(folder, "", each);
  }

  void listLengths(String folder, String namePrefix, LengthConsumer each) throws IOException {
    int names = S3Location.parse(folder).folderPrefix().length();
    listing(
        folder,
        namePrefix,
        page -> {
          for (S3Object object : page.contents()) {
            if (object.key().length() > names) {
              each.accept(object.key().substring(names), object.size());
            }
          }
        });
  }

  List<String> listFolders(String folder) throws IOException {
    List<String> names = new ArrayList<>();
    listing(
        folder,
        page -> {
          String prefix = page.prefix();
          for (CommonPrefix common : page.commonPrefixes()) {
            String name = common.prefix().substring(prefix.length());
            names.add(name.substring(0, name.length() - 1));
          }
        });
    names.sort(null);
    return names;
  }

  /** Every page of the listing directly under {@code folder}, following continuation tokens. */
  private void listing(String folder, Consumer<ListObjectsV2Response> pages) throws IOException {
    listing(folder, "", pages);
  }

  /** The same, of the names starting with {@code namePrefix} only. */
  private void listing(String folder, String namePrefix, Consumer<ListObjectsV2Response> pages)
      throws IOException {
    S3Location at = S3Location.parse(folder);
    String prefix = at.folderPrefix() + namePrefix;
    String token = null;
    do {
      String continuation = token;
      ListObjectsV2Response page =
          calls.run(
              "list",
              folder,
              at,
              () ->
                  client.listObjectsV2(
                      b ->
                          b.bucket(at.bucket())
                              .prefix(prefix)
                              .delimiter("/")
                              .maxKeys(settings.listPageSize())
                              .continuationToken(continuation)));
      pages.accept(page);
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
  }
}
