package io.icerepl.app.service;

import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Test-only: an instance whose clock runs ahead of the others', for the pause campaign's skewed
 * clock variant. With {@code replicator.test.clock-offset=<ISO-8601 duration>} (a system property
 * or any other property source) the service's {@link Clock} is the system's shifted by that much,
 * and every user of the service's clock takes it: the S3 leases judge expiry by it, so this
 * instance sees other instances' leases expire early and takes their tables over while they still
 * write. Without the property there is no clock bean and every user takes the system's.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(SkewedClock.OFFSET)
class SkewedClock {
  static final String OFFSET = "replicator.test.clock-offset";

  @Bean
  Clock clock(Environment environment) {
    Duration offset = Duration.parse(environment.getRequiredProperty(OFFSET));
    System.err.println("CLOCK-OFFSET " + offset + " (test-only " + OFFSET + ")");
    return Clock.offset(Clock.systemUTC(), offset);
  }
}
