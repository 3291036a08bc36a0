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
  void wake_ups_from_new_commits_do_not_cut_short_the_backoff_while_the_other_side_is_down()
      throws Exception {
    AtomicInteger steps = new AtomicInteger();
    CountDownLatch first = new CountDownLatch(1);
    CountDownLatch second = new CountDownLatch(1);
    try (DeliveryLoop loop =
        new DeliveryLoop(
            "test",
            now -> {
              steps.incrementAndGet();
              first.countDown();
              if (steps.get() >= 2) {
                second.countDown();
              }
              return DeliveryLoop.Outcome.UNAVAILABLE;
            },
            Clock.systemUTC(),
            Duration.ofMillis(10),
            new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(2)))) {
      loop.start();
      assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 20; i++) {
        loop.wakeUp(); // a commit closed rooms
        Thread.sleep(25);
      }
      assertThat(steps.get()).as("steps during the first backoff").isEqualTo(1);
      assertThat(second.await(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void a_wake_up_ends_an_idle_wait_at_once() throws Exception {
    CountDownLatch second = new CountDownLatch(2);
    try (DeliveryLoop loop =
        new DeliveryLoop(
            "test",
            now -> {
              second.countDown();
              return DeliveryLoop.Outcome.IDLE;
            },
            Clock.systemUTC(),
            Duration.ofMinutes(1),
            new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)))) {
      loop.start();
      Thread.sleep(200);
      loop.wakeUp();
      assertThat(second.await(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void an_error_thrown_by_a_step_does_not_end_the_loop() throws Exception {
    AtomicInteger steps = new AtomicInteger();
    CountDownLatch secondStep = new CountDownLatch(1);
    try (DeliveryLoop loop =
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
            new Backoff(Duration.ofMillis(10), Duration.ofMillis(20)))) {
      loop.start();
      assertThat(secondStep.await(5, TimeUnit.SECONDS))
          .as("the loop ran another step after the Error")
          .isTrue();
    }
  }
}
