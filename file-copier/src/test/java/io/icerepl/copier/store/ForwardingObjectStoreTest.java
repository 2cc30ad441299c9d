package io.icerepl.copier.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForwardingObjectStoreTest {
  @TempDir Path dir;

  /** A real local store that records which of its own ways of doing a call were taken. */
  private static final class Delegate extends ForwardingObjectStore {
    final List<String> calls = new ArrayList<>();

    Delegate() {
      super(new LocalObjectStore());
    }

    @Override
    public boolean createIfAbsent(String path, Writer writer) throws IOException {
      calls.add("createIfAbsent(writer) " + path);
      return super.createIfAbsent(path, writer);
    }

    @Override
    public boolean createIfAbsent(String path, byte[] content) throws IOException {
      calls.add("createIfAbsent(bytes) " + path);
      return super.createIfAbsent(path, content);
    }

    @Override
    public void delete(String path) throws IOException {
      calls.add("delete " + path);
      super.delete(path);
    }

    @Override
    public void deleteAll(List<String> paths) throws IOException {
      calls.add("deleteAll " + paths);
      super.deleteAll(paths);
    }
  }

  @Test
  void aCreateFromAWriterReachesTheDelegatesOwnCreateNotItsBufferedDefault() throws IOException {
    Delegate delegate = new Delegate();
    ObjectStore wrapper = new ForwardingObjectStore(delegate) {};
    String path = dir.resolve("v1.metadata.json").toUri().toString();

    boolean created =
        wrapper.createIfAbsent(path, out -> out.write("{}".getBytes(StandardCharsets.UTF_8)));

    assertThat(created).isTrue();
    assertThat(delegate.calls).containsExactly("createIfAbsent(writer) " + path);
    assertThat(Files.readString(dir.resolve("v1.metadata.json"))).isEqualTo("{}");
    assertThat(wrapper.createIfAbsent(path, out -> out.write('x'))).isFalse();
    assertThat(Files.readString(dir.resolve("v1.metadata.json"))).isEqualTo("{}");
  }

  @Test
  void aDeleteOfManyReachesTheDelegatesOwnBatchDelete() throws IOException {
    Delegate delegate = new Delegate();
    ObjectStore wrapper = new ForwardingObjectStore(delegate) {};
    Files.writeString(dir.resolve("a"), "a");
    Files.writeString(dir.resolve("b"), "b");
    List<String> paths =
        List.of(dir.resolve("a").toUri().toString(), dir.resolve("b").toUri().toString());

    wrapper.deleteAll(paths);

    assertThat(delegate.calls).containsExactly("deleteAll " + paths);
    assertThat(dir.resolve("a")).doesNotExist();
    assertThat(dir.resolve("b")).doesNotExist();
  }

  @Test
  void everyDefaultMethodIsForwarded() {
    List<String> notForwarded =
        Arrays.stream(ObjectStore.class.getMethods())
            .filter(Method::isDefault)
            .filter(m -> !declaredBy(ForwardingObjectStore.class, m))
            .map(Method::toString)
            .toList();
    assertThat(notForwarded).isEmpty();
  }

  private static boolean declaredBy(Class<?> type, Method method) {
    try {
      type.getDeclaredMethod(method.getName(), method.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
