package io.icerepl.app.logging;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/** {@code %msg} through {@link Redaction}: a log line never carries a secret, whoever wrote it. */
public final class RedactedMessageConverter extends MessageConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Redaction.apply(super.convert(event));
  }
}
