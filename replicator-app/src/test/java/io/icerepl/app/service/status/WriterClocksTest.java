package io.icerepl.app.service.status;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.icerepl.app.engine.SourceTable;
import io.icerepl.app.engine.worker.TableKey;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.model.TableMetadataParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.HasTableOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A table written by the Iceberg library, its metadata read by the board as runs at chosen moments
 * of the replicator's clock would: a stamp ahead by more than the table's allowance is warned once,
 * shown in the status and the gauge while runs find it, cleared by a run that finds none, and
 * warned again when it comes back.
 */
class WriterClocksTest {
  private static final TableKey KEY =
      new TableKey("r", "a", "ns/t", "file:/src/wh/ns/t", "file:/dst/wh/ns/t");

  @Test
  void aStampAheadIsWarnedOnceShownWhileFoundAndWarnedAgainAfterItRecovered(@TempDir Path dir)
      throws Exception {
    SourceTable table = SourceTable.create(dir.resolve("t"), 2);
    table.append("a", 1);
    long id = table.table.currentSnapshot().snapshotId();
    long stamp = table.table.currentSnapshot().timestampMillis();
    TableMetadata metadata = read(table);
    // the commit's last-updated-ms may come a few milliseconds after its snapshot's stamp
    long top = Math.max(stamp, metadata.lastUpdatedMs());
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    StatusBoard board = new StatusBoard(Clock.systemUTC(), meters, key -> Duration.ofSeconds(2));
    board.seen(KEY);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger logger = (Logger) LoggerFactory.getLogger(WriterClocks.class);
    Level level = logger.getLevel();
    logger.setLevel(Level.INFO);
    logger.addAppender(logs);
    try {
      board.sourceRead(KEY, metadata, top + 1);
      assertThat(gauge(meters)).isZero();
      assertThat(board.get(KEY).orElseThrow().writerClockNote()).isNull();

      board.sourceRead(KEY, metadata, stamp - 2001);
      board.sourceRead(KEY, metadata, stamp - 5000);
      ReplicationStatus status = board.get(KEY).orElseThrow();
      assertThat(status.writerClockAheadSeconds()).isEqualTo(5.0);
      assertThat(status.writerClockNote())
          .contains("snapshot " + id)
          .contains("5.000 s after the replicator read it (allowance PT2S)")
          .contains("NTP");
      assertThat(gauge(meters)).isEqualTo(5.0);
      assertThat(warnings(logs)).isEqualTo(1);

      board.sourceRead(KEY, metadata, top - 2000);
      assertThat(gauge(meters)).as("exactly the allowance ahead").isZero();
      assertThat(board.get(KEY).orElseThrow().writerClockAheadSeconds()).isZero();
      assertThat(logs.list)
          .anyMatch(e -> e.getLevel() == Level.INFO && e.getFormattedMessage().contains("again"));

      board.sourceRead(KEY, metadata, stamp - 3000);
      assertThat(warnings(logs)).isEqualTo(2);
      assertThat(logs.list.get(0).getFormattedMessage()).startsWith("ns/t: on a, ");
    } finally {
      logger.detachAppender(logs);
      logger.setLevel(level);
    }
  }

  private static double gauge(SimpleMeterRegistry meters) {
    return meters
        .get("replicator.writer.clock.ahead")
        .tag("table", "ns/t")
        .tag("target", "a")
        .gauge()
        .value();
  }

  private static long warnings(ListAppender<ILoggingEvent> logs) {
    return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
  }

  private static TableMetadata read(SourceTable table) throws Exception {
    String file = ((HasTableOperations) table.table).operations().current().metadataFileLocation();
    try (InputStream in = Files.newInputStream(Path.of(URI.create(file)))) {
      return TableMetadataParser.read(in, file, TableMetadataParser.DEFAULT_MAX_METADATA_BYTES);
    }
  }
}
