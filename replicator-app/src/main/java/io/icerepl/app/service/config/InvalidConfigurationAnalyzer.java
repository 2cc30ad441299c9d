package io.icerepl.app.service.config;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A start refused for its configuration is reported as what is wrong, not as a stack trace: the
 * operator's mistake, not the service's.
 */
final class InvalidConfigurationAnalyzer
    extends AbstractFailureAnalyzer<InvalidConfigurationException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidConfigurationException cause) {
    return new FailureAnalysis(
        cause.getMessage(), "Correct the key named above and start the service again.", cause);
  }
}
