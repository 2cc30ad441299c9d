package io.icerepl.app.engine.head;

import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.error.BadInputException;
import io.icerepl.merge.head.SourceHead;
import io.icerepl.merge.path.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The head as readers find it in the metadata folder: the version hint, else the single newest,
 * passing over catalog-style files younger than the settle time.
 */
public record FileSystemHeadResolver(ObjectStore store, Clock clock, Duration settleTime)
    implements SourceHeadResolver {

  @Override
  public Head head(String location) {
    String folder = TableLayout.metadataFolder(location);
    try {
      List<ObjectStore.Entry> entries = store.listEntries(folder);
      Optional<String> hint = Optional.empty();
      if (entries.stream().anyMatch(e -> e.name().equals(TableLayout.VERSION_HINT))) {
        hint =
            Optional.of(
                ReplicaFiles.readText(store, TableLayout.join(folder, TableLayout.VERSION_HINT)));
      }
      List<SourceHead.Listed> files =
          entries.stream().map(e -> new SourceHead.Listed(e.name(), e.lastModifiedMs())).toList();
      SourceHead.Resolution resolution =
          SourceHead.resolve(folder, files, hint, clock.millis(), settleTime.toMillis());
      String name =
          resolution
              .head()
              .orElseThrow(
                  () ->
                      new BadInputException(
                          "Cannot resolve the current metadata of "
                              + folder
                              + ": no *.metadata.json there (is "
                              + location
                              + " an Iceberg table's location?)"));
      return new Head(
          TableLayout.join(folder, name),
          resolution.settlesAtMs(),
          resolution.settlingSinceMs(),
          Optional.of(MetadataListing.of(entries)));
    } catch (IOException e) {
      throw new UncheckedIOException(IoErrors.cannot("list", folder, e), e);
    }
  }
}
