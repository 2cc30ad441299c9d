package io.icerepl.app.cli;

import io.icerepl.app.engine.FileSystemHeadResolver;
import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.verify.TableVerifier;
import io.icerepl.app.engine.verify.VerifyResult;
import io.icerepl.app.engine.verify.VerifySource;
import io.icerepl.copier.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code verify}: proves a replica complete, and with a source, as complete as the source. */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = {
      "Checks a replica: every snapshot's manifest list and manifests decode; every file a",
      "snapshot or statistics entry names exists with its recorded length (and the source's",
      "checksum for byte-for-byte copies, where both stores keep one); no path points outside",
      "the replica; with --source, every snapshot and ref of the source is on the replica unless",
      "the replica's own retention removed it. Prints one line per problem, then",
      "'N checked, M problems'; exits 0 only when there is no problem."
    })
final class VerifyCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin StoreOptions stores;

  @Option(
      names = "--source",
      paramLabel = "<location>",
      description =
          "Source table location to compare with (its current metadata as replicate resolves it).")
  String source;

  @CommandLine.Mixin TargetOption target;

  @CommandLine.Mixin ThreadsOption threads;

  @CommandLine.Mixin MetadataLimitOption metadataLimit;

  @Override
  public Integer call() {
    if (threads.threads() < 1) {
      throw new IllegalArgumentException(
          "Cannot verify " + target.target() + ": --threads must be at least 1");
    }
    PrintWriter out = spec.commandLine().getOut();
    ExecutorService pool = Executors.newFixedThreadPool(threads.threads());
    try (StoreOptions opened = stores) {
      VerifyResult result =
          new TableVerifier(
                  stores.target(target.target()),
                  pool,
                  threads.threads(),
                  metadataLimit.maxMetadataBytes())
              .verify(target.target(), source(), out::println);
      out.println(result.checked() + " checked, " + result.problems() + " problems");
      out.flush();
      return result.problems() == 0 ? 0 : 1;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The source to compare with: its current metadata, resolved as {@code replicate} does. */
  private Optional<VerifySource> source() {
    if (source == null) {
      return Optional.empty();
    }
    ObjectStore store = stores.source(source);
    String head =
        new FileSystemHeadResolver(store, Clock.systemUTC(), ReplicationOptions.DEFAULT_SETTLE_TIME)
            .head(source)
            .file();
    return Optional.of(new VerifySource(store, source, head));
  }
}
