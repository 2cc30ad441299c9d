package io.icerepl.copier.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.merge.copyplan.FileCopy;
import io.icerepl.merge.copyplan.FileKind;
import io.icerepl.merge.copyplan.ManifestListCopy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A file is awaited while its put is in flight, and a manifest list waits for the manifests the run
 * writes: rendered once their lengths are known, written once they are in place.
 */
class PublishOrderTest {
  private final PublishOrder order = new PublishOrder();

  @Test
  void aFileIsAwaitedFromItsStartUntilItsOwnPutFinishes() {
    CompletableFuture<Void> put = new CompletableFuture<>();
    CompletableFuture<Void> earlier = new CompletableFuture<>();
    order.started("r/data/a", put);

    assertThat(order.inFlight("r/data/a")).isTrue();
    assertThat(order.awaited(List.of("r/data/a", "r/data/b"))).containsExactly(put);

    order.finished("r/data/a", earlier); // another put's end leaves this one in flight
    assertThat(order.awaited(List.of("r/data/a"))).containsExactly(put);

    order.finished("r/data/a", put);
    assertThat(order.inFlight("r/data/a")).isFalse();
    assertThat(order.awaited(List.of("r/data/a"))).isEmpty();
  }

  @Test
  void aManifestListWaitsForTheManifestsThisRunWritesAndTheirLengths() {
    CompletableFuture<Long> rendered = new CompletableFuture<>();
    CompletableFuture<Long> written = new CompletableFuture<>();
    CompletableFuture<Long> streamed = new CompletableFuture<>();
    order.manifest("r/m1.avro", rendered, written);
    order.manifest("r/m2.avro", streamed, streamed);
    ManifestListCopy list =
        new ManifestListCopy(
            FileCopy.of(FileKind.MANIFEST_LIST, "s/snap.avro", "r/snap.avro", -1),
            List.of("r/m1.avro", "r/m2.avro", "r/m0.avro"),
            Map.of("r/m0.avro", 9L));

    PublishOrder.ListInputs inputs = order.inputsOf(list);
    rendered.complete(10L);
    assertThat(inputs.lengthsKnown()).isNotDone();
    streamed.complete(20L);
    assertThat(inputs.lengthsKnown()).isCompleted();
    assertThat(inputs.manifestsWritten()).isNotDone();
    written.complete(10L);
    assertThat(inputs.manifestsWritten()).isCompleted();

    assertThat(order.manifestLength("r/m1.avro")).isSameAs(rendered);
    assertThat(order.manifestLength("r/m0.avro")).isNull(); // in place before this run
  }
}
