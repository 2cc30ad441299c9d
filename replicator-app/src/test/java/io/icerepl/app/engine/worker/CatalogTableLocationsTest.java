package io.icerepl.app.engine.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CatalogTableLocationsTest {
  private static final TableKey KEY =
      new TableKey("rule", "dr", "ns/t", "s3://src/wh/ns/t", "s3://dst/wh/ns/t");
  private static final String V6 = "s3://src/wh/ns/t/metadata/00006-aa.metadata.json";
  private static final String V7 = "s3://src/wh/ns/t/metadata/00007-bb.metadata.json";

  private final CatalogTableLocations locations = new CatalogTableLocations();

  @Test
  void aVersionAnEventAnnouncedIsAskedForAgainAfterGrowingWaitsUntilTheCatalogNamesIt() {
    locations.announced(List.of(KEY), 7);

    assertThat(locations.recheckIn(KEY, V6)).contains(Duration.ofMillis(20));
    assertThat(locations.recheckIn(KEY, V6)).contains(Duration.ofMillis(40));
    assertThat(locations.recheckIn(KEY, V7)).isEmpty();
    assertThat(locations.recheckIn(KEY, V6)).as("forgotten once named").isEmpty();
  }

  @Test
  void theRechecksStopAfterTheMostAllowed() {
    locations.announced(List.of(KEY), 7);

    List<Long> waits = new ArrayList<>();
    Optional<Duration> next;
    while ((next = locations.recheckIn(KEY, V6)).isPresent() && waits.size() < 100) {
      waits.add(next.get().toMillis());
    }

    assertThat(waits).containsExactly(20L, 40L, 80L, 160L, 320L, 640L, 1000L, 1000L, 1000L, 1000L);
    assertThat(locations.recheckIn(KEY, V6)).isEmpty();
  }

  @Test
  void anOlderAnnouncementChangesNothingAndANewerOneStartsTheWaitsAgain() {
    locations.announced(List.of(KEY), 7);
    locations.recheckIn(KEY, V6);
    locations.announced(List.of(KEY), 6);
    assertThat(locations.recheckIn(KEY, V6)).contains(Duration.ofMillis(40));

    locations.announced(List.of(KEY), 8);
    assertThat(locations.recheckIn(KEY, V7)).contains(Duration.ofMillis(20));
  }

  @Test
  void aTableNoEventAnnouncedANewerVersionOfIsNotAskedAgain() {
    assertThat(locations.recheckIn(KEY, V6)).isEmpty();
    locations.announced(List.of(KEY), 6);
    assertThat(locations.recheckIn(KEY, V6)).isEmpty();
  }
}
