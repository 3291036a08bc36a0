package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;

/**
 * Scenario 1 from outside: four worker processes of the jar against one PostgreSQL 15 server with
 * 10,000 conferences, while the messenger's commands hold row locks, for 60 s; the invariant
 * checker passes. Four JVMs take about a minute to start on two cores, so this runs with {@code
 * -Dreaper.soak=true}; the fast version of scenario 1 in the test command is {@code
 * ManyRunnersTest}.
 */
class ManyProcessesIT {

  @Test
  void four_worker_processes_and_live_commands_keep_every_invariant() throws Exception {
    assumeTrue(ReliabilityHarness.SOAK, "four worker processes: run with -Dreaper.soak=true");
    try (ReliabilityHarness h = ReliabilityHarness.start()) {
      Instant start = Instant.now();
      List<UUID> ids = MessengerLoad.seed(h.rooms, 10_000, start);
      List<ReaperWorker> workers = new ArrayList<>();
      long applied;
      Instant sloFrom;
      try (MessengerLoad load = new MessengerLoad(h.dataSource, ids).start(4, 31)) {
        for (int i = 1; i <= 4; i++) {
          workers.add(h.worker("W" + i));
        }
        for (ReaperWorker w : workers) {
          w.awaitStarted(Duration.ofSeconds(180));
        }
        // The SLO binds from the moment the workers are up and the seeded backlog is gone: rooms
        // that became due
        // while the JVMs were still starting, or that queued behind the backlog (claims are oldest
        // first), cannot
        // meet it by construction.
        sloFrom = h.settle(Duration.ofSeconds(60));
        Thread.sleep(
            Duration.ofSeconds(60)
                .toMillis()); // the scenario's run: workers and commands interleave
        applied = load.applied.get();
      }
      Instant settledAt = h.settle(Duration.ofSeconds(60));
      long cycles = workers.stream().mapToLong(w -> w.cycles().size()).sum();
      long skipped =
          workers.stream()
              .mapToLong(w -> w.cycles().stream().filter(ReaperWorker.CycleEvent::skipped).count())
              .sum();
      String perWorker = h.cyclesPerWorker();
      h.stopWorkers();
      List<String> violations = h.violations(settledAt, sloFrom);
      InvariantChecker.Figures f = h.figures();
      System.out.printf(
          "scenario many-processes: conferences=%d runners=4 (processes) cycles=%d lockHeld=%d"
              + " (cycles/skipped/failed per worker: %s) commandsApplied=%d reaperClosedEnded=%d failed=%d stillActive=%d violations=%d%n",
          f.conferences(),
          cycles,
          skipped,
          perWorker,
          applied,
          f.ended(),
          f.failed(),
          f.active(),
          violations.size());
      assertThat(violations).isEmpty();
      assertThat(applied).isPositive();
    }
  }
}
