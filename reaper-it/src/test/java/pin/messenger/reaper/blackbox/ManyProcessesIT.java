package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;

/**
 * Scenario 1 from outside: four worker processes of the jar against one PostgreSQL server (the one
 * {@link PostgresServer#start()} picks) while the messenger's commands hold row locks; the
 * invariant checker passes. In the test command a bounded run: 3,000 conferences and 20 s after the
 * backlog is drained (about 1.5 minutes in all on two cores, most of it four JVMs starting); with
 * {@code -Dreaper.soak=true} the soak: 10,000 conferences and 60 s. The in-process version of
 * scenario 1 is {@code ManyRunnersIT}.
 */
class ManyProcessesIT {
  static final int CONFERENCES = ReliabilityHarness.SOAK ? 10_000 : 3_000;
  static final Duration RUN = Duration.ofSeconds(ReliabilityHarness.SOAK ? 60 : 20);

  @Test
  void four_worker_processes_and_live_commands_keep_every_invariant() throws Exception {
    long t0 = System.nanoTime();
    try (ReliabilityHarness h = ReliabilityHarness.start()) {
      Instant start = Instant.now();
      List<UUID> ids = MessengerLoad.seed(h.rooms, CONFERENCES, start);
      List<ReaperWorker> workers = new ArrayList<>();
      long commands;
      long applied;
      Instant sloFrom;
      try (HikariDataSource commandPool = h.commandPool();
          MessengerLoad load = new MessengerLoad(commandPool, ids).start(4, 31)) {
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
        Thread.sleep(RUN.toMillis()); // the scenario's run: workers and commands interleave
        commands = load.commands.get();
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
              + " (cycles/skipped/failed per worker: %s) commands=%d commandsApplied=%d reaperClosedEnded=%d"
              + " failed=%d stillActive=%d violations=%d run=%ds soak=%s wall=%ds%n",
          f.conferences(),
          cycles,
          skipped,
          perWorker,
          commands,
          applied,
          f.ended(),
          f.failed(),
          f.active(),
          violations.size(),
          RUN.toSeconds(),
          ReliabilityHarness.SOAK,
          (System.nanoTime() - t0) / 1_000_000_000);
      assertThat(violations).isEmpty();
      assertThat(applied).isPositive();
    }
  }
}
