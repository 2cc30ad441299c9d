package io.icerepl.app.service.events;

import io.awspring.cloud.sqs.config.SqsMessageListenerContainerFactory;
import java.time.Duration;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Bounds how long the queue's listener holds a stopping service. It waits for its long poll in
 * flight (application.yml sets 2 s) and the messages being handled, which here only trigger tables;
 * by default it would wait up to 20 s. A poll still going after the bound is cut short: the
 * messages it received become visible again after the queue's visibility timeout and go to another
 * instance, and reconciliation finds their tables anyway.
 */
@Component
@ConditionalOnProperty(prefix = "replicator.sqs", name = "enabled", havingValue = "true")
class SqsListenerShutdown implements BeanPostProcessor {
  static final Duration BOUND = Duration.ofSeconds(3);

  @Override
  public Object postProcessAfterInitialization(Object bean, String name) {
    if (bean instanceof SqsMessageListenerContainerFactory<?> factory) {
      factory.configure(
          options -> options.listenerShutdownTimeout(BOUND).acknowledgementShutdownTimeout(BOUND));
    }
    return bean;
  }
}
