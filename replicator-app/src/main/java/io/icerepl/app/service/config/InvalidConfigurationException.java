package io.icerepl.app.service.config;

/**
 * The service's configuration cannot run as given: thrown while it starts, before it answers or
 * replicates anything. {@code serve} reports it as a bad argument (exit 2), with its one line.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {

  /**
   * @param problem the configuration key and what is wrong with it
   */
  public InvalidConfigurationException(String problem) {
    super("Cannot start the service: " + problem);
  }
}
