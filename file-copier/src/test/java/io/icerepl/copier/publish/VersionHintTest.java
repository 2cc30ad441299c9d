package io.icerepl.copier.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.copier.store.ForwardingObjectStore;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The version hint only moves forward, whoever writes it and whenever. */
class VersionHintTest {
  @TempDir Path dir;

  @Test
  void aHintIsNeverMovedBack() throws IOException {
    String location = dir.resolve("t").toUri().toString();
    MetadataPublisher publisher = new MetadataPublisher(new LocalObjectStore());

    assertThat(publisher.writeVersionHint(location, 5)).isTrue();
    assertThat(publisher.writeVersionHint(location, 3)).isFalse();

    assertThat(hint()).isEqualTo("5");
  }

  /**
   * A writer paused between reading the hint and replacing it, while another moves it past the
   * version it was about to write: its replace is refused, it reads the hint again and leaves it.
   */
  @Test
  void aWriterPausedWhileAnotherMovedTheHintPastItLeavesTheHint() throws IOException {
    String location = dir.resolve("t").toUri().toString();
    LocalObjectStore local = new LocalObjectStore();
    new MetadataPublisher(local).writeVersionHint(location, 2);
    AtomicBoolean overtaken = new AtomicBoolean();
    ObjectStore paused =
        new ForwardingObjectStore(local) {
          @Override
          public Optional<ObjectVersion> replaceIf(
              String path, Optional<ObjectVersion> expected, byte[] content) throws IOException {
            if (overtaken.compareAndSet(false, true)) {
              new MetadataPublisher(local).writeVersionHint(location, 4);
            }
            return super.replaceIf(path, expected, content);
          }
        };

    boolean moved = new MetadataPublisher(paused).writeVersionHint(location, 3);

    assertThat(overtaken).isTrue();
    assertThat(moved).isFalse();
    assertThat(hint()).isEqualTo("4");
  }

  /** Creating a version leaves the hint to its own write, which then moves it. */
  @Test
  void creatingAVersionLeavesTheHintToItsOwnWrite() throws IOException {
    String location = dir.resolve("t").toUri().toString();
    MetadataPublisher publisher = new MetadataPublisher(new LocalObjectStore());
    publisher.writeVersionHint(location, 1);

    String file =
        publisher.create("t", location, 2, out -> out.write("{}".getBytes(StandardCharsets.UTF_8)));

    assertThat(Path.of(java.net.URI.create(file))).hasContent("{}");
    assertThat(hint()).isEqualTo("1");
    assertThat(publisher.writeVersionHint(location, 2)).isTrue();
    assertThat(hint()).isEqualTo("2");
  }

  private String hint() throws IOException {
    return Files.readString(dir.resolve("t/metadata/version-hint.text"), StandardCharsets.UTF_8);
  }
}
