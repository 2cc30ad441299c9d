package io.icerepl.app.service.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every state a replica can be in is explained in docs/configuration.md's table of states and has a
 * style on the status page, and neither names a state there is not.
 */
class ReplicationStateDocsTest {
  private static final List<String> STATES =
      Arrays.stream(ReplicationState.values()).map(Enum::name).toList();

  @Test
  void theConfigurationDocsTableListsEveryStateOnce() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("../docs/configuration.md"));
    int header = lines.indexOf("| state | means | ends when |");
    assertThat(header).as("the table of states in docs/configuration.md").isNotNegative();
    List<String> listed =
        lines.subList(header + 2, lines.size()).stream()
            .takeWhile(l -> l.startsWith("|"))
            .map(l -> l.split("\\|")[1].strip().replace("`", ""))
            .toList();

    assertThat(listed).containsExactlyElementsOf(STATES);
  }

  @Test
  void theStatusPageStylesEveryStateAndNoOther() throws IOException {
    String css = Files.readString(Path.of("src/main/resources/static/status.css"));
    Set<String> styled = new LinkedHashSet<>();
    Matcher selector = Pattern.compile("\\.([A-Z][A-Z_]+)\\b").matcher(css);
    while (selector.find()) {
      styled.add(selector.group(1));
    }

    assertThat(styled).containsExactlyInAnyOrderElementsOf(STATES);
  }
}
