package io.icerepl.app.service.config;

import io.icerepl.app.service.s3.S3Properties;
import io.icerepl.app.service.stores.CloudStoreProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.FileSystemResource;

/**
 * The service's configuration read from one file ({@code .yml}, {@code .yaml} or {@code
 * .properties}) with Spring Boot's binder, as the service binds it, without starting the service:
 * for commands that work by the service's rules.
 *
 * @param replicator {@code replicator.*}
 * @param s3 {@code replicator.s3.*}
 * @param azure {@code replicator.azure.*}
 * @param gcs {@code replicator.gcs.*}
 */
public record ConfigurationFile(
    ReplicatorProperties replicator,
    S3Properties s3,
    CloudStoreProperties.Azure azure,
    CloudStoreProperties.Gcs gcs) {

  /**
   * @throws IllegalArgumentException naming the file when it cannot be read or bound
   */
  public static ConfigurationFile read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("Cannot read configuration " + file + ": no such file");
    }
    String name = file.getFileName().toString();
    PropertySourceLoader loader =
        name.endsWith(".properties")
            ? new PropertiesPropertySourceLoader()
            : new YamlPropertySourceLoader();
    try {
      List<PropertySource<?>> sources = loader.load(name, new FileSystemResource(file));
      Binder binder = new Binder(ConfigurationPropertySources.from(sources));
      return new ConfigurationFile(
          binder.bindOrCreate("replicator", Bindable.of(ReplicatorProperties.class)),
          binder.bindOrCreate("replicator.s3", Bindable.of(S3Properties.class)),
          binder.bindOrCreate("replicator.azure", Bindable.of(CloudStoreProperties.Azure.class)),
          binder.bindOrCreate("replicator.gcs", Bindable.of(CloudStoreProperties.Gcs.class)));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "Cannot read configuration " + file + ": " + rootMessage(e), e);
    }
  }

  /** A binding error's own message says only which key failed; its cause says why. */
  private static String rootMessage(Throwable e) {
    Throwable cause = e;
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
      message.append(": ").append(cause.getMessage());
    }
    return message.toString();
  }
}
