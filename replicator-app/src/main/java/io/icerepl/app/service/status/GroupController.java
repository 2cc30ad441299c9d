package io.icerepl.app.service.status;

import io.icerepl.app.engine.group.GroupCutReader;
import java.util.List;
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
  private final GroupCuts cuts;

  public GroupController(GroupCuts cuts) {
    this.cuts = cuts;
  }

  @GetMapping
  public List<GroupCutReader.Report> list() {
    return cuts.all();
  }

  @GetMapping("/{name}")
  public ResponseEntity<GroupCutReader.Report> get(@PathVariable String name) {
    return cuts.get(name)
        .map(ResponseEntity::ok)
        .orElseGet(() -> ResponseEntity.notFound().build());
  }
}
