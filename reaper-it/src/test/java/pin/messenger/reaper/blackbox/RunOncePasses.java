package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Callable;

/**
 * {@code run-once} passes until the expected rows are published. The relay gives the broker's
 * metadata at most 2 s ({@code max.block.ms}, documented): on a loaded machine a cold process can
 * find a live broker unreachable, and such a pass publishes nothing and says so. A pass that falls
 * short for any other reason, or a fifth short pass, fails the test; so does publishing more.
 */
final class RunOncePasses {
  /** What one pass published, and its output (to find the "unreachable" line in). */
  record Pass(int published, String output) {}

  private static final int MAX_PASSES = 5;

  private RunOncePasses() {}

  /** Runs {@code pass} until {@code expected} rows are published in all; returns the passes run. */
  static int untilPublished(int expected, Callable<Pass> pass) throws Exception {
    int published = 0;
    int passes = 0;
    while (published < expected) {
      Pass p = pass.call();
      passes++;
      published += p.published();
      if (published < expected) {
        assertThat(p.output())
            .as(
                "a run-once pass left %d of %d unpublished: %s",
                expected - published, expected, p.output())
            .contains("Kafka broker unreachable");
        assertThat(passes).as("run-once passes").isLessThan(MAX_PASSES);
      }
    }
    assertThat(published).as("published").isEqualTo(expected);
    return passes;
  }
}
