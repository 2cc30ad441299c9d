package io.icerepl.merge.group;

import io.icerepl.merge.path.TableLocation;
import io.icerepl.merge.state.GroupMembership;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The groups the replicas of a consistent promotion record themselves members of ({@link
 * GroupMembership}), read against the tables the promotion names: a group promoted in part would
 * leave its other tables replicas of a lost source, at no cut with the promoted ones.
 */
public final class RecordedGroups {
  private RecordedGroups() {}

  /**
   * For each group a replica records, the members it records that {@code targets} leave out (by
   * location, however spelled); empty when every recorded group is named whole.
   */
  public static Map<String, List<String>> leftOut(
      List<String> targets, List<GroupMembership> recorded) {
    Set<TableLocation> named = new LinkedHashSet<>();
    targets.forEach(target -> named.add(TableLocation.of(target)));
    Map<String, List<String>> left = new LinkedHashMap<>();
    for (GroupMembership group : recorded) {
      List<String> missing = new ArrayList<>();
      for (String member : group.members()) {
        if (!named.contains(TableLocation.of(member))) {
          missing.add(member);
        }
      }
      if (!missing.isEmpty()) {
        left.putIfAbsent(group.name(), missing);
      }
    }
    return left;
  }

  /**
   * The one group the replicas record, when they agree on one (the command line then reads the cut
   * with its allowance and window); empty when none records a group, or they record different ones.
   */
  public static Optional<GroupMembership> common(List<GroupMembership> recorded) {
    Set<String> names = new LinkedHashSet<>();
    recorded.forEach(group -> names.add(group.name()));
    return names.size() == 1 ? Optional.of(recorded.get(0)) : Optional.empty();
  }
}
