package io.icerepl.copier.gcs;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import io.icerepl.copier.store.ObjectStore.Entry;
import io.icerepl.copier.store.ObjectStore.LengthConsumer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * Listings of a GCS folder: one listing with the folder's prefix and {@code currentDirectory()},
 * paged by the client, whose objects are the folder's files and whose prefixes its folders.
 */
record GcsListing(Storage storage) {

  /** The objects directly under {@code folder} with their times of update, by name. */
  List<Entry> entries(String folder) throws IOException {
    List<Entry> entries = new ArrayList<>();
    listing(
        folder,
        "",
        (name, blob) -> {
          if (!blob.isDirectory()) {
            entries.add(new Entry(name, updatedMs(blob)));
          }
        });
    entries.sort(Comparator.comparing(Entry::name));
    return entries;
  }

  /** One listing of the names under the folder that start with {@code namePrefix}. */
  void lengths(String folder, String namePrefix, LengthConsumer each) throws IOException {
    listing(
        folder,
        namePrefix,
        (name, blob) -> {
          if (!blob.isDirectory()) {
            each.accept(name, blob.getSize());
          }
        });
  }

  /** The folders directly under {@code folder}, by name. */
  List<String> folders(String folder) throws IOException {
    List<String> names = new ArrayList<>();
    listing(
        folder,
        "",
        (name, blob) -> {
          if (blob.isDirectory()) {
            names.add(name.substring(0, name.length() - 1));
          }
        });
    names.sort(null);
    return names;
  }

  /** Visits every entry of the listing directly under {@code folder}, by its name there. */
  private void listing(String folder, String namePrefix, NamedBlobs each) throws IOException {
    GcsLocation at = GcsLocation.parse(folder);
    String prefix = at.folderPrefix();
    Page<Blob> page =
        GcsErrors.run(
            "list",
            folder,
            () ->
                storage.list(
                    at.bucket(),
                    BlobListOption.prefix(prefix + namePrefix),
                    BlobListOption.currentDirectory()));
    Consumer<Blob> visit =
        blob -> {
          // A zero-byte "folder/" marker written by consoles is the folder itself, not a file.
          if (blob.getName().length() > prefix.length()) {
            each.accept(blob.getName().substring(prefix.length()), blob);
          }
        };
    GcsErrors.run(
        "list",
        folder,
        () -> {
          page.iterateAll().forEach(visit);
          return null;
        });
  }

  @FunctionalInterface
  private interface NamedBlobs {
    void accept(String name, Blob blob);
  }

  private static long updatedMs(Blob blob) {
    return blob.getUpdateTimeOffsetDateTime() == null
        ? 0
        : blob.getUpdateTimeOffsetDateTime().toInstant().toEpochMilli();
  }
}
