package io.icerepl.app.service.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.icerepl.app.service.s3.S3Properties;
import io.icerepl.app.service.security.ApiProperties;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every property the service reads is documented in {@code application.yml}, with its default or in
 * the commented example beside it, so the reference cannot drift from the code: a new record
 * component under {@code replicator.*} without its key there fails here.
 */
class PropertiesDocumentedTest {
  private static final Path APPLICATION_YML =
      Path.of("src", "main", "resources", "application.yml");

  @Test
  void everyPropertyOfTheServiceHasItsKeyInApplicationYml() throws Exception {
    String yml = Files.readString(APPLICATION_YML, StandardCharsets.UTF_8);
    List<String> keys = new ArrayList<>();
    for (Class<?> root :
        List.of(ReplicatorProperties.class, S3Properties.class, ApiProperties.class)) {
      collect(root, "", keys, new HashSet<>());
    }
    assertThat(keys).as("the properties found").hasSizeGreaterThan(30);
    List<String> undocumented =
        keys.stream().filter(key -> !yml.contains(leaf(key) + ":")).toList();
    assertThat(undocumented).as("properties missing from application.yml").isEmpty();
  }

  private static void collect(Class<?> type, String prefix, List<String> keys, Set<Class<?>> seen) {
    if (!type.isRecord() || !seen.add(type)) {
      return;
    }
    for (RecordComponent component : type.getRecordComponents()) {
      String key = prefix + kebab(component.getName());
      keys.add(key);
      collect(component.getType(), key + ".", keys, seen);
      Type generic = component.getGenericType();
      if (generic instanceof ParameterizedType parameterized) {
        for (Type argument : parameterized.getActualTypeArguments()) {
          if (argument instanceof Class<?> element) {
            collect(element, key + "[].", keys, seen);
          }
        }
      }
    }
  }

  private static String leaf(String key) {
    return key.substring(key.lastIndexOf('.') + 1);
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }
}
