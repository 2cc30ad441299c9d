package io.icerepl.app.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;

/**
 * {@code %ex} through {@link Redaction}: the messages of a stack trace and of its causes are
 * third-party text (a driver's, a client library's) and may quote a secret.
 */
public final class RedactedThrowableConverter extends ThrowableProxyConverter {
  @Override
  protected String throwableProxyToString(IThrowableProxy proxy) {
    return Redaction.apply(super.throwableProxyToString(proxy));
  }
}
