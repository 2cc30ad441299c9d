package io.icerepl.app.replicate;

import io.icerepl.app.replica.ReplicaFiles;
import io.icerepl.copier.commit.MetadataPublisher;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.head.SourceHead;
import io.icerepl.merge.path.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/** The head as readers find it in the metadata folder: the version hint, else the single newest. */
public final class FileSystemHeadResolver implements SourceHeadResolver {
  private final ObjectStore store;

  public FileSystemHeadResolver(ObjectStore store) {
    this.store = store;
  }

  @Override
  public String currentMetadataFile(String location) {
    String folder = MetadataPublisher.metadataFolder(location);
    try {
      List<String> names = store.list(folder);
      Optional<String> hint = Optional.empty();
      if (names.contains(MetadataPublisher.VERSION_HINT)) {
        hint = Optional.of(ReplicaFiles.readText(store, TableLayout.join(folder, MetadataPublisher.VERSION_HINT)));
      }
      String name =
          SourceHead.resolve(folder, names, hint)
              .orElseThrow(() -> new BadInputException(
                  "Cannot resolve the current metadata of " + folder + ": it holds no metadata file"));
      return TableLayout.join(folder, name);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + folder + ": " + e.getMessage(), e);
    }
  }
}
