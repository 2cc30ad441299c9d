package io.icerepl.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short run of {@code benchmark reconcile}: its simulated hours of the adaptive schedule must
 * replicate every commit whose event was lost (the benchmark reads each changed replica back with
 * the Iceberg library and fails otherwise) and cost fewer requests than listing every table at
 * every pass.
 */
class ReconcileBenchmarkTest {
  private static final Pattern PER_DAY =
      Pattern.compile("requests per day: ([0-9,]+) against ([0-9,]+) listing every table");
  private static final Pattern DETECTED =
      Pattern.compile(
          "(\\d+) commits with their event lost, all replicated: .* \\((\\d+)-(\\d+)\\)");

  @Test
  void idleTablesCostAFractionOfTheRequestsAndEveryLostEventIsCaughtWithinTheBound(
      @TempDir Path dir) throws Exception {
    StringWriter printed = new StringWriter();

    new ReconcileBenchmark(new PrintWriter(printed)).run(dir, 200, 1, 2, 180, 8);

    String out = printed.toString();
    Matcher perDay = PER_DAY.matcher(out);
    assertThat(perDay.find()).as(out).isTrue();
    long scheduled = Long.parseLong(perDay.group(1).replace(",", ""));
    long everyPass = Long.parseLong(perDay.group(2).replace(",", ""));
    // three hours, the first of which rises from every pass to the idle interval
    assertThat(scheduled).isPositive().isLessThan(everyPass / 4);
    Matcher detected = DETECTED.matcher(out);
    assertThat(detected.find()).as(out).isTrue();
    assertThat(Integer.parseInt(detected.group(1))).isEqualTo(8);
    assertThat(Integer.parseInt(detected.group(3))).isBetween(1, 16);
  }
}
