package io.icerepl.app.engine.catalog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableCommit;

/**
 * Moves the catalog entries of a replication group's replicas to a new cut together: in a JDBC
 * catalog in one database transaction (a compare-and-swap on every row), in a REST catalog with the
 * protocol's multi-table commit. Until then each entry is held where it is ({@link #held}), so a
 * reader of the catalog never finds one table at a newer cut than another of the same catalog. Glue
 * has no commit of several tables: its entries move one by one, as any replica's, and the cut is
 * read through the group's tags only. A group whose replicas are registered in several catalogs
 * moves each catalog's entries together.
 */
public final class EntriesTogether {
  private EntriesTogether() {}

  /** A replica whose entry is moved with the group's others. */
  public record Member(String replicaLocation, String currentFile, ReplicaRegistrar registrar) {}

  /**
   * The registrar of a group member's entry: one whose catalog moves entries together holds the
   * entry back from every version carrying a newer cut of {@code ref} than the entry shows; other
   * kinds are returned as they are.
   */
  public static ReplicaRegistrar held(ReplicaRegistrar registrar, String ref) {
    return registrar instanceof JdbcRegistrar || registrar instanceof RestRegistrar
        ? new CutHeldRegistrar((EntryRegistrar) registrar, ref)
        : registrar;
  }

  /**
   * Moves the members' entries to the cut tagged {@code cutTag}, each catalog's in one commit; an
   * entry that moved in between makes the commit fail as a whole, and it is planned and tried once
   * more. Then the members of that catalog with no entry yet are registered at their current
   * version, which carries the cut: a member's entry is created here only, never by its own runs
   * ({@link CutHeldRegistrar}), so no entry appears at a version behind a cut the others show.
   * Entries of catalogs that cannot move together are left to each replica's own runs.
   *
   * @return how many entries were moved or registered
   * @throws CatalogException when a catalog refuses, or the entries moved twice meanwhile
   */
  public static int move(List<Member> members, String cutTag) {
    Map<CatalogSpec, List<Member>> byCatalog = new LinkedHashMap<>();
    for (Member member : members) {
      EntryRegistrar registrar = unwrapped(member.registrar());
      if (registrar instanceof JdbcRegistrar || registrar instanceof RestRegistrar) {
        byCatalog.computeIfAbsent(registrar.spec, spec -> new ArrayList<>()).add(member);
      }
    }
    int moved = 0;
    for (List<Member> inCatalog : byCatalog.values()) {
      moved += moveInOne(inCatalog, cutTag);
      moved += registerMissing(inCatalog);
    }
    return moved;
  }

  /**
   * Registers the members that have no entry, once the others show the cut their current versions
   * carry; a member registered meanwhile by another instance's move is left to that move.
   */
  private static int registerMissing(List<Member> members) {
    int registered = 0;
    for (Member member : members) {
      EntryRegistrar registrar = unwrapped(member.registrar());
      if (registrar.entryFile().isEmpty()
          && registrar.register(member.replicaLocation(), member.currentFile())
              == ReplicaRegistrar.Registration.REGISTERED) {
        registered++;
      }
    }
    return registered;
  }

  private static int moveInOne(List<Member> members, String cutTag) {
    for (int attempt = 0; attempt < 2; attempt++) {
      Optional<Integer> moved =
          unwrapped(members.get(0).registrar()) instanceof JdbcRegistrar
              ? swapJdbc(members)
              : commitRest(members, cutTag);
      if (moved.isPresent()) {
        return moved.get();
      }
    }
    throw new CatalogException(
        "Cannot move the entries of "
            + members.stream().map(m -> m.registrar().describe()).toList()
            + " together to cut "
            + cutTag
            + ": an entry moved twice while they were being moved",
        null);
  }

  private static Optional<Integer> swapJdbc(List<Member> members) {
    List<JdbcRegistrar.Swap> swaps = new ArrayList<>();
    for (Member member : members) {
      ((JdbcRegistrar) unwrapped(member.registrar()))
          .planSwap(member.replicaLocation(), member.currentFile())
          .ifPresent(swaps::add);
    }
    if (swaps.isEmpty()) {
      return Optional.of(0);
    }
    return JdbcRegistrar.swapAll(swaps) ? Optional.of(swaps.size()) : Optional.empty();
  }

  private static Optional<Integer> commitRest(List<Member> members, String cutTag) {
    List<RestRegistrar> registrars = new ArrayList<>();
    List<TableCommit> commits = new ArrayList<>();
    for (Member member : members) {
      RestRegistrar registrar = (RestRegistrar) unwrapped(member.registrar());
      Optional<TableCommit> commit =
          registrar.planCommit(member.replicaLocation(), member.currentFile(), cutTag);
      if (commit.isPresent()) {
        registrars.add(registrar);
        commits.add(commit.get());
      }
    }
    if (commits.isEmpty()) {
      return Optional.of(0);
    }
    return RestRegistrar.commitAll(registrars, commits)
        ? Optional.of(commits.size())
        : Optional.empty();
  }

  private static EntryRegistrar unwrapped(ReplicaRegistrar registrar) {
    if (registrar instanceof CutHeldRegistrar held) {
      return held.delegate;
    }
    return registrar instanceof EntryRegistrar entry ? entry : null;
  }
}
