package io.icerepl.app.cli.options;

import io.icerepl.merge.path.PathMapping;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Path prefixes a replication maps beyond the table's own locations. */
public final class PathMapOption {
  // no list until one is given: the help then shows no empty default
  @Option(
      names = "--map",
      paramLabel = "<source-prefix>=<target-prefix>",
      description =
          "Maps one more path prefix (repeatable), for files outside the table location"
              + " and its write.data.path / write.metadata.path; the only way to place files"
              + " outside the target. Without it, when both locations end in the same path"
              + " (s3://a/wh/t to s3://b/wh/t), such files keep their layout below s3://a in a"
              + " folder of the target (s3://a/x to s3://b/wh/t/data/a-<hash>/x), said in the"
              + " output and kept for later runs.")
  List<String> maps;

  /**
   * The prefixes given, in their order.
   *
   * @throws IllegalArgumentException when one is not {@code <source-prefix>=<target-prefix>}
   */
  public List<PathMapping.Prefix> prefixes() {
    List<PathMapping.Prefix> prefixes = new ArrayList<>();
    for (String map : maps == null ? List.<String>of() : maps) {
      int eq = map.indexOf('=');
      if (eq <= 0 || eq == map.length() - 1) {
        throw new IllegalArgumentException(
            "Cannot parse --map " + map + ": expected <source-prefix>=<target-prefix>");
      }
      prefixes.add(new PathMapping.Prefix(map.substring(0, eq), map.substring(eq + 1)));
    }
    return prefixes;
  }
}
