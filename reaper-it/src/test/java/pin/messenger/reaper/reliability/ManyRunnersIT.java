package pin.messenger.reaper.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.PostgresReaperStore;
import pin.messenger.reaper.testing.InvariantChecker;
import pin.messenger.reaper.testing.MessengerLoad;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * Scenario 1, fast version (in one JVM; the black-box version runs separate processes): four
 * runners, each with its own pool, over 10,000 conferences while the messenger's commands hold row
 * locks; the invariant checker passes. {@code -Dreaper.soak=true} runs it for 60 s instead of 12 s.
 */
class ManyRunnersIT {
  static final ConferenceRoomReaperOptions OPTIONS =
      ConferenceRoomReaperOptions.builder()
          .pollingInterval(Duration.ofSeconds(1))
          .emptyRoomGrace(Duration.ofSeconds(3))
          .provisionTimeout(Duration.ofSeconds(5))
          .staleLiveTimeout(Duration.ofSeconds(20))
          .lockTtl(Duration.ofSeconds(20))
          .maxRunDuration(Duration.ofSeconds(5))
          .statementTimeout(Duration.ofSeconds(4))
          .batchSize(500)
          .drainEnabled(true)
          .drainPause(Duration.ofMillis(10))
          .build();

  /**
   * Slack on top of the polling interval for the SLO invariant. Four runners, the messenger's
   * commands and the server share two cores, and on a loaded CI machine one cycle can start seconds
   * late. The invariant here is "bounded by the interval, not unbounded"; the tight lateness
   * figures are the benchmark's (docs/benchmarks.md).
   */
  static final Duration TOLERANCE = Duration.ofSeconds(5);

  @Test
  void four_runners_and_live_commands_keep_every_invariant() throws Exception {
    Duration runFor =
        Boolean.getBoolean("reaper.soak") ? Duration.ofSeconds(60) : Duration.ofSeconds(12);
    try (TestDatabase db = TestDatabase.create()) {
      Rooms rooms = new Rooms(db.dataSource());
      Instant start = Instant.now();
      List<UUID> ids = MessengerLoad.seed(rooms, 10_000, start);
      List<HikariDataSource> pools = new ArrayList<>();
      List<ReaperLoop> loops = new ArrayList<>();
      AtomicInteger cycles = new AtomicInteger();
      AtomicInteger lockHeld = new AtomicInteger();
      long commands;
      long applied;
      try (MessengerLoad load = new MessengerLoad(db.dataSource(), ids).start(6, 11)) {
        for (int i = 0; i < 4; i++) {
          HikariDataSource pool = new HikariDataSource();
          pool.setJdbcUrl(db.url());
          pool.setUsername(db.user());
          pool.setPassword(db.password());
          pool.setMaximumPoolSize(3);
          pools.add(pool);
          ConferenceRoomReaper reaper =
              new ConferenceRoomReaper(
                  new PostgresReaperStore(pool), OPTIONS, ReaperObserver.NONE, List.of());
          ReaperLoop loop =
              new ReaperLoop(
                  reaper,
                  r -> {
                    cycles.incrementAndGet();
                    if (!r.lockAcquired()) {
                      lockHeld.incrementAndGet();
                    }
                  });
          loops.add(loop);
          loop.start();
        }
        Thread.sleep(
            runFor
                .toMillis()); // the scenario's duration: commands and runners interleave meanwhile
        commands = load.commands.get();
        applied = load.applied.get();
      } finally {
        loops.forEach(ReaperLoop::close);
      }
      // Settle: one runner drains whatever became due, until nothing is left.
      ConferenceRoomReaper settle =
          new ConferenceRoomReaper(
              new PostgresReaperStore(db.dataSource()), OPTIONS, ReaperObserver.NONE, List.of());
      Instant settledAt;
      CycleResult r;
      do {
        settledAt = Instant.now();
        r = settle.runOnce(settledAt, Cancellation.NONE);
      } while (r.reaped() > 0);
      pools.forEach(HikariDataSource::close);

      InvariantChecker checker = new InvariantChecker(db.dataSource());
      List<String> violations =
          checker.violations(
              settledAt,
              start,
              OPTIONS.emptyRoomGrace(),
              OPTIONS.provisionTimeout(),
              OPTIONS.staleLiveTimeout(),
              OPTIONS.pollingInterval(),
              TOLERANCE);
      InvariantChecker.Figures f = checker.figures();
      System.out.printf(
          "scenario many-runners: conferences=%d runners=4 cycles=%d lockHeld=%d commands=%d"
              + " commandsApplied=%d reaperClosedEnded=%d failed=%d stillActive=%d violations=%d%n",
          f.conferences(),
          cycles.get(),
          lockHeld.get(),
          commands,
          applied,
          f.ended(),
          f.failed(),
          f.active(),
          violations.size());
      assertThat(violations).isEmpty();
      assertThat(applied).isPositive();
      assertThat(f.ended() + f.failed()).isGreaterThan(5_000);
      assertThat(lockHeld.get()).isPositive(); // the runners really contended for the lock
    }
  }
}
