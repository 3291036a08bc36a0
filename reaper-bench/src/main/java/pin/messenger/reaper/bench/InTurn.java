package pin.messenger.reaper.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Steps timed in turn, round after round, each round's steps given the same moment: a figure and
 * its reference measured seconds apart, so that the ratio of the two is not the machine's drift.
 */
final class InTurn {
  /** One timed step. */
  interface Step {
    void run(Instant now) throws Exception;
  }

  private InTurn() {}

  /**
   * Runs {@code warmUp + rounds} rounds; returns, per round after the warm-up, each step's time in
   * ms, in the order of {@code steps}.
   */
  static List<double[]> time(int rounds, int warmUp, List<Step> steps) throws Exception {
    List<double[]> times = new ArrayList<>();
    for (int i = 0; i < warmUp + rounds; i++) {
      Instant now = Instant.now();
      double[] ms = new double[steps.size()];
      for (int k = 0; k < steps.size(); k++) {
        long t0 = System.nanoTime();
        steps.get(k).run(now);
        ms[k] = (System.nanoTime() - t0) / 1e6;
      }
      if (i >= warmUp) {
        times.add(ms);
      }
    }
    return times;
  }

  /** Step {@code k}'s times, one a round. */
  static List<Double> of(List<double[]> times, int k) {
    return times.stream().map(t -> t[k]).toList();
  }

  /** An idle cycle of {@code reaper} as a step: it must close nothing. */
  static Step idleCycle(pin.messenger.reaper.core.ConferenceRoomReaper reaper, String name) {
    return now -> {
      int reaped = reaper.runOnce(now, pin.messenger.reaper.core.Cancellation.NONE).reaped();
      if (reaped != 0) {
        throw new IllegalStateException("idle cycle on " + name + " reaped " + reaped);
      }
    };
  }
}
