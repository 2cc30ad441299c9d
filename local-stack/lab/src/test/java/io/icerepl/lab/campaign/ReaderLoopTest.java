package io.icerepl.lab.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReaderLoopTest {

  @Test
  void anErrorThrownByAnOpenIsAFailureAndTheReaderGoesOn() {
    AtomicInteger calls = new AtomicInteger();
    ReaderLoop loop =
        new ReaderLoop(
            () -> {
              if (calls.incrementAndGet() == 2) {
                throw new NoClassDefFoundError("org/example/Missing");
              }
              return 3;
            },
            0);

    loop.readOnce();
    loop.readOnce();
    loop.readOnce();

    assertThat(loop.opens()).isEqualTo(2);
    assertThat(loop.rows()).isEqualTo(6);
    assertThat(loop.failures()).isEqualTo(1);
    assertThat(loop.failureMessages()).singleElement().asString().contains("NoClassDefFoundError");
  }

  @Test
  void pollsBeforeTheReplicaExistsAreNotOpens() {
    ReaderLoop loop = new ReaderLoop(() -> -1, 0);
    loop.readOnce();
    assertThat(loop.opens()).isZero();
    assertThat(loop.notYet()).isEqualTo(1);
  }
}
