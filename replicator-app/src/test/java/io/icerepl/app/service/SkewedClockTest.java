package io.icerepl.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * The test-only clock offset: with {@code replicator.test.clock-offset} set, the service's one
 * {@link Clock} (the leases', the status board's) runs that far ahead of the system's; without it
 * there is no clock bean and every user takes the system's.
 */
class SkewedClockTest {

  @Test
  void theOffsetMovesTheServicesClockAhead() {
    try (AnnotationConfigApplicationContext context = context(Map.of(SkewedClock.OFFSET, "PT5M"))) {
      long ahead = context.getBean(Clock.class).millis() - Clock.systemUTC().millis();
      // five minutes ahead, give or take the time between the two reads
      assertThat(ahead)
          .isBetween(
              Duration.ofMinutes(5).minusSeconds(10).toMillis(), Duration.ofMinutes(5).toMillis());
    }
  }

  @Test
  void withoutTheOffsetThereIsNoClockBean() {
    try (AnnotationConfigApplicationContext context = context(Map.of())) {
      assertThat(context.getBeanProvider(Clock.class).getIfAvailable()).isNull();
    }
  }

  private static AnnotationConfigApplicationContext context(Map<String, Object> properties) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("test", properties));
    context.register(SkewedClock.class);
    context.refresh();
    return context;
  }
}
