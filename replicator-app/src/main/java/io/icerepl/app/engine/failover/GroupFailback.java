package io.icerepl.app.engine.failover;

import io.icerepl.app.engine.ReplicationOptions;
import io.icerepl.app.engine.TableHeads;
import io.icerepl.app.engine.TableReplicationException;
import io.icerepl.app.engine.TableReplicator;
import io.icerepl.app.engine.catalog.TableCatalogs;
import io.icerepl.app.engine.replica.CutTagWriter;
import io.icerepl.app.engine.replica.ReplicaFiles;
import io.icerepl.copier.copy.CopyProgress;
import io.icerepl.copier.store.IoErrors;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.group.CutTags;
import io.icerepl.merge.group.GroupCut;
import io.icerepl.merge.group.GroupMember;
import io.icerepl.merge.model.TableMetadata;
import io.icerepl.merge.path.TableLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;

/**
 * A replication group failed back after a consistent failover: every original made a replica of its
 * promoted table ({@link TableFailback}: the promoted history carried over, the old source's
 * orphans kept under tags), then one cut of the promoted tables tagged on every original. Read at
 * the cut tag the originals show one moment of the promoted tables, as the replicas showed one
 * moment of the sources; a consistent promotion of the originals (the switch back) promotes them
 * all at it.
 *
 * <p>The cut is computed as a replicating group's is ({@link GroupCut}): each original is known
 * current from the moment a check found it holding its promoted table's head, and the cut is the
 * earliest of those moments, so a writer that goes on committing to the promoted tables while they
 * are failed back one after the other cannot leave one original ahead of another at the tag.
 * Rerunning carries the promoted tables' new commits over and tags a newer cut.
 *
 * @param patience how long an original may take to hold its promoted table's head (a promoted
 *     metadata file still settling is waited for) before the fail-back is refused
 */
public record GroupFailback(
    Clock clock,
    ExecutorService executor,
    ReplicationOptions options,
    String tagPrefix,
    Duration patience) {

  /**
   * One table of the group.
   *
   * @param table how messages name it
   * @param primaryLocation the promoted table, the primary now
   * @param originalLocation its original, the old source
   * @param catalogs the promoted table's head in its catalog, the original's catalog entry
   */
  public record Member(
      String table,
      String primaryLocation,
      String originalLocation,
      ObjectStore primary,
      ObjectStore original,
      TableCatalogs catalogs) {}

  /**
   * What the fail-back did to one table.
   *
   * @param failback what its fail-back runs copied and the orphans they kept
   * @param knownCurrentFrom since when the original is known to hold every commit of the promoted
   *     table
   * @param cutSnapshotId the original's snapshot at the cut tag; null when it had none then (no
   *     tag)
   * @param changedAfterCut how many times the original's {@code main} changed after the cut's
   *     moment: what a reader at the tag does not see
   */
  public record TableResult(
      String table,
      FailbackSummary failback,
      Instant knownCurrentFrom,
      Long cutSnapshotId,
      int changedAfterCut) {}

  /**
   * @param cutTag the tag every original with a snapshot at the cut carries
   * @param cut the tag's moment
   */
  public record Result(String cutTag, Instant cut, List<TableResult> tables) {}

  /**
   * Fails every member back and tags the group's cut {@code ref} on the originals.
   *
   * @param clockSkew how far the promoted tables' writers' clocks may run behind this one
   * @param transactionWindow the cut is moved back out of any multi-table transaction whose
   *     snapshots lie closer together than this
   * @param keepTags how long the cut tags stay on the originals
   * @throws TableReplicationException naming the table refused or failed; the originals failed back
   *     before it stay failed back (a rerun continues), and no cut tag is written
   */
  public Result failback(
      List<Member> members,
      String ref,
      Duration clockSkew,
      Duration transactionWindow,
      Duration keepTags)
      throws InterruptedException {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("A group's fail-back needs at least one table");
    }
    if (members.stream().map(m -> TableLocation.of(m.originalLocation())).distinct().count()
        != members.size()) {
      throw new IllegalArgumentException(
          "Cannot fail back the group " + ref + ": an original location is repeated");
    }
    // a cut before a promotion would read a primary's main as it was before the promotion moved it
    // to its cut: the replicated heads, at no one moment. Every original is checked from late
    // enough that the cut, less the allowance and the window, rounded down, lies after them all.
    long promotedAt = latestPromotion(members);
    long checkFrom = promotedAt + clockSkew.toMillis() + transactionWindow.toMillis() + 1_000;
    long wait = checkFrom - clock.millis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
    List<FailbackSummary> summaries = new ArrayList<>();
    List<GroupMember> current = new ArrayList<>();
    for (Member member : members) {
      Caught caught = catchUp(member);
      summaries.add(caught.summary());
      current.add(new GroupMember(member.table(), caught.fromMs(), originalMetadata(member)));
    }
    GroupCut cut = GroupCut.of(current, clockSkew, transactionWindow);
    long moment = cut.tagMomentMs();
    String cutTag = CutTags.name(ref, moment);
    if (moment < promotedAt) {
      throw new TableReplicationException(
          members.get(0).table(),
          new IllegalStateException(
              "Cannot tag the cut "
                  + cutTag
                  + " of the failed-back group "
                  + ref
                  + ": it lies before the promotion of "
                  + Instant.ofEpochMilli(promotedAt)
                  + " (the transaction window found no quiet moment after it); rerun the"
                  + " fail-back once the promoted tables' writers pause; no cut tag was written"));
    }
    List<TableResult> tables = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      Member member = members.get(i);
      tag(member, ref, moment, keepTags);
      TableMetadata tagged = originalMetadata(member);
      Long atCut = tagged.refs().get(cutTag);
      int after = (int) tagged.snapshotLog().stream().filter(e -> e.timestampMs() > moment).count();
      tables.add(
          new TableResult(
              member.table(),
              summaries.get(i),
              Instant.ofEpochMilli(current.get(i).knownCurrentAtMs()),
              atCut,
              after));
    }
    return new Result(cutTag, Instant.ofEpochMilli(moment), tables);
  }

  /** A member's fail-back runs, and the moment from which its original is known current. */
  private record Caught(FailbackSummary summary, long fromMs) {}

  /**
   * Fails the member back until a check finds the original holding the promoted table's head, no
   * newer file settling: from the moment the check began, the original holds every earlier commit.
   */
  private Caught catchUp(Member member) throws InterruptedException {
    TableFailback failback =
        new TableFailback(
            member.primary(),
            member.original(),
            clock,
            executor,
            options,
            tagPrefix,
            member.catalogs());
    TableReplicator check =
        TableReplicator.builder(member.primary(), member.original(), executor, options)
            .clock(clock)
            .progress(CopyProgress.Listener.NONE)
            .catalogs(member.catalogs())
            .build();
    long deadline = clock.millis() + patience.toMillis();
    FailbackSummary summary = null;
    while (true) {
      summary =
          combined(summary, failback.failback(member.primaryLocation(), member.originalLocation()));
      long from = clock.millis();
      TableHeads heads = check.read(member.primaryLocation(), member.originalLocation());
      if (heads.inSync() && heads.source().settlingSinceMs().isEmpty()) {
        return new Caught(summary, from);
      }
      if (clock.millis() > deadline) {
        throw new TableReplicationException(
            member.table(),
            new IllegalStateException(
                "Cannot fail back "
                    + member.table()
                    + " into "
                    + member.originalLocation()
                    + " at a cut of the group: it did not come to hold "
                    + member.primaryLocation()
                    + "'s head "
                    + heads.source().file()
                    + " within "
                    + patience
                    + " (a file still settling, or writers committing faster than it is carried"
                    + " over); no cut tag was written"));
      }
      OptionalLong settles = heads.source().settlesAtMs();
      long wait = settles.isPresent() ? settles.getAsLong() - clock.millis() : 100;
      Thread.sleep(Math.max(50, Math.min(wait, 1_000)));
    }
  }

  private void tag(Member member, String ref, long moment, Duration keep) {
    try {
      new CutTagWriter(member.original(), clock, options.maxMetadataBytes())
          .move(
              member.table(),
              member.originalLocation(),
              ref,
              moment,
              keep,
              file ->
                  member
                      .catalogs()
                      .registrar()
                      .ifPresent(entry -> entry.register(member.originalLocation(), file)));
    } catch (IOException e) {
      throw new TableReplicationException(
          member.table(), new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /** The latest moment a member's primary was promoted at; 0 when none records a promotion. */
  private long latestPromotion(List<Member> members) {
    long latest = 0;
    for (Member member : members) {
      try {
        Promotion promotion =
            new ReplicaFiles(member.primary(), options.maxMetadataBytes())
                .state(member.primaryLocation())
                .promotion();
        if (promotion != null) {
          latest = Math.max(latest, promotion.promotedAtMillis());
        }
      } catch (IOException e) {
        throw new TableReplicationException(
            member.table(), new UncheckedIOException(e.getMessage(), e));
      }
    }
    return latest;
  }

  private TableMetadata originalMetadata(Member member) {
    try {
      return new ReplicaFiles(member.original(), options.maxMetadataBytes())
          .head(member.table(), member.originalLocation())
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "Cannot tag the cut on "
                          + member.table()
                          + ": no version at "
                          + member.originalLocation()))
          .metadata();
    } catch (IOException e) {
      throw new TableReplicationException(
          member.table(), new UncheckedIOException(IoErrors.describe(e), e));
    }
  }

  /** The runs of one table as one: what they copied added up, the orphans as the last one kept. */
  private static FailbackSummary combined(FailbackSummary before, FailbackSummary run) {
    if (before == null) {
      return run;
    }
    List<String> files = new ArrayList<>(before.replicaMetadataFiles());
    files.addAll(run.replicaMetadataFiles());
    return new FailbackSummary(
        run.originalLocation(),
        files,
        before.snapshotsAdded() + run.snapshotsAdded(),
        before.filesCopied() + run.filesCopied(),
        before.bytesCopied() + run.bytesCopied(),
        run.orphanSnapshotIds(),
        run.orphanTags());
  }
}
