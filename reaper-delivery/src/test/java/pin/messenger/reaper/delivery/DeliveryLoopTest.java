package pin.messenger.reaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeliveryLoopTest {

  @Test
  void an_error_thrown_by_a_step_does_not_end_the_loop() throws Exception {
    AtomicInteger steps = new AtomicInteger();
    CountDownLatch secondStep = new CountDownLatch(1);
    DeliveryLoop loop =
        new DeliveryLoop(
            "test",
            now -> {
              if (steps.incrementAndGet() == 1) {
                throw new StackOverflowError("a step's Error");
              }
              secondStep.countDown();
              return DeliveryLoop.Outcome.IDLE;
            },
            Clock.systemUTC(),
            Duration.ofMillis(10),
            new Backoff(Duration.ofMillis(10), Duration.ofMillis(20)));
    try {
      loop.start();
      assertThat(secondStep.await(5, TimeUnit.SECONDS))
          .as("the loop ran another step after the Error")
          .isTrue();
    } finally {
      loop.close();
    }
  }
}
