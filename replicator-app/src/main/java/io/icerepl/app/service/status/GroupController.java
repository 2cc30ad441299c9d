package io.icerepl.app.service.status;

import io.icerepl.app.engine.group.GroupCutReader;
import io.icerepl.app.service.config.ReplicatorProperties;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The replication groups' cuts ({@code replicator.groups}): for each group the moment every table
 * is known replicated, the table holding it back, and each replica's snapshot of that moment, so
 * that {@code VERSION AS OF <snapshotId>} on every table reads one moment of the sources.
 */
@RestController
@RequestMapping("/api/groups")
public class GroupController {
  private final StatusBoard board;
  private final ReplicatorProperties properties;
  private final GroupCutReader reader;
  private final Clock clock;

  public GroupController(
      StatusBoard board,
      ReplicatorProperties properties,
      GroupCutReader reader,
      ObjectProvider<Clock> clock) {
    this.board = board;
    this.properties = properties;
    this.reader = reader;
    this.clock = clock.getIfAvailable(Clock::systemUTC);
  }

  @GetMapping
  public List<GroupCutReader.Report> list() {
    return properties.groups().stream().map(this::report).toList();
  }

  @GetMapping("/{name}")
  public ResponseEntity<GroupCutReader.Report> get(@PathVariable String name) {
    return properties.groups().stream()
        .filter(group -> group.name().equals(name))
        .findFirst()
        .map(group -> ResponseEntity.ok(report(group)))
        .orElseGet(() -> ResponseEntity.notFound().build());
  }

  private GroupCutReader.Report report(ReplicatorProperties.Group group) {
    List<GroupCutReader.Member> members =
        group.tables().stream()
            .map(
                table -> {
                  var key = board.findTable(group.target(), table);
                  return new GroupCutReader.Member(
                      table,
                      key,
                      key.map(board::knownCurrentFrom).orElse(java.util.OptionalLong.empty()));
                })
            .toList();
    return reader.read(group.name(), members, group.clockSkew(), clock.instant());
  }
}
