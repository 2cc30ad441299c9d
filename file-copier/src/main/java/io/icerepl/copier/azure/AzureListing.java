package io.icerepl.copier.azure;

import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.icerepl.copier.store.ObjectStore.Entry;
import io.icerepl.copier.store.ObjectStore.LengthConsumer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A folder's listing as List Blobs with the delimiter '/' (the SDK's {@code listBlobsByHierarchy}):
 * the blobs directly under the folder with their lengths and times, and its subfolders as blob
 * prefixes, in pages of up to 5,000, never a request per blob. A container that does not exist
 * lists nothing, as a missing folder does.
 *
 * <p>On an account with a hierarchical namespace (ADLS Gen2) a directory is also listed as an empty
 * blob with the metadata {@code hdi_isfolder=true} beside its prefix; it is a folder, not an
 * object, so the listing asks for metadata and leaves such blobs out.
 */
final class AzureListing {
  private static final int PAGE_SIZE = 5_000;

  /** The metadata that marks a hierarchical namespace's directory in a Blob listing. */
  private static final String FOLDER_MARK = "hdi_isfolder";

  private final AzureClients clients;

  AzureListing(AzureClients clients) {
    this.clients = clients;
  }

  List<String> list(String folder) throws IOException {
    List<String> names = new ArrayList<>();
    blobs(folder, "", (name, item) -> names.add(name));
    return names;
  }

  List<Entry> listEntries(String folder) throws IOException {
    List<Entry> entries = new ArrayList<>();
    blobs(
        folder,
        "",
        (name, item) ->
            entries.add(
                new Entry(
                    name, item.getProperties().getLastModified().toInstant().toEpochMilli())));
    return entries;
  }

  void listLengths(String folder, String namePrefix, LengthConsumer each) throws IOException {
    blobs(
        folder,
        namePrefix,
        (name, item) -> {
          Long length = item.getProperties().getContentLength();
          each.accept(name, length == null ? 0 : length);
        });
  }

  List<String> listFolders(String folder) throws IOException {
    List<String> folders = new ArrayList<>();
    items(
        folder,
        "",
        (prefix, item) -> {
          if (Boolean.TRUE.equals(item.isPrefix())) {
            String name = item.getName().substring(prefix.length());
            folders.add(name.endsWith("/") ? name.substring(0, name.length() - 1) : name);
          }
        });
    return folders;
  }

  /** A blob directly under the folder, by its name there. */
  @FunctionalInterface
  private interface BlobConsumer {
    void accept(String name, BlobItem item);
  }

  private void blobs(String folder, String namePrefix, BlobConsumer each) throws IOException {
    items(
        folder,
        namePrefix,
        (prefix, item) -> {
          if (!Boolean.TRUE.equals(item.isPrefix()) && !isDirectory(item)) {
            each.accept(item.getName().substring(prefix.length()), item);
          }
        });
  }

  private static boolean isDirectory(BlobItem item) {
    Map<String, String> metadata = item.getMetadata();
    return metadata != null && "true".equalsIgnoreCase(metadata.get(FOLDER_MARK));
  }

  private void items(String folder, String namePrefix, BlobConsumer each) throws IOException {
    AzureLocation at = AzureLocation.parse(folder);
    String prefix = at.folderPrefix();
    ListBlobsOptions options =
        new ListBlobsOptions()
            .setPrefix(prefix + namePrefix)
            .setMaxResultsPerPage(PAGE_SIZE)
            .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    try {
      AzureErrors.run(
          "list",
          folder,
          () -> {
            clients
                .container(at)
                .listBlobsByHierarchy("/", options, null)
                .forEach((Consumer<BlobItem>) item -> each.accept(prefix, item));
            return null;
          });
    } catch (IOException e) {
      if (e.getCause() instanceof BlobStorageException failed
          && AzureErrors.isContainerMissing(failed)) {
        return;
      }
      throw e;
    }
  }
}
