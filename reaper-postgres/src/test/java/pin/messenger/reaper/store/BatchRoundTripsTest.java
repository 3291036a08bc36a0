package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ConferenceSession;
import pin.messenger.reaper.core.CycleOrigin;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Decision;
import pin.messenger.reaper.core.LockLostException;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperDecision;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.Transition;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * Round trips of one batch, counted at the JDBC calls that each cost one with pgjdbc (every
 * execute, commit, rollback and savepoint call; statements sent together by one execute are one
 * round trip), on the batch's connection and the run lock's alike.
 */
class BatchRoundTripsTest {
  static TestDatabase db;
  static final Instant AS_OF = Instant.parse("2026-12-02T10:00:00Z");
  static final ConferenceRoomReaperOptions OPTIONS = ConferenceRoomReaperOptions.defaults();

  final AtomicInteger roundTrips = new AtomicInteger();
  PostgresReaperStore store;
  Rooms rooms;

  @BeforeAll
  static void start() {
    db = TestDatabase.create();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    rooms = new Rooms(db.dataSource());
    rooms.truncateAll();
    store = new PostgresReaperStore(counting(db.dataSource()));
  }

  @Test
  void a_batch_that_closes_rooms_costs_three_round_trips() {
    for (int i = 0; i < 20; i++) {
      rooms.insert(Rooms.emptyActive(AS_OF.minusSeconds(300 + i)));
    }
    try (ReaperStore.RunLock lock =
        store.tryAcquireRunLock(OPTIONS.lockTtl(), Instant.now(), OPTIONS)) {
      roundTrips.set(0);

      int closed = batch(lock, Phase.EMPTY_ROOM, 10);

      assertThat(closed).isEqualTo(10);
      // limits + lock check + claim + count; savepoint + write + release + lock check; commit
      assertThat(roundTrips.get()).isEqualTo(3);
    }
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(10);
  }

  @Test
  void a_batch_with_nothing_due_costs_two_round_trips() {
    rooms.insert(Rooms.occupied(AS_OF, 2));
    try (ReaperStore.RunLock lock =
        store.tryAcquireRunLock(OPTIONS.lockTtl(), Instant.now(), OPTIONS)) {
      roundTrips.set(0);

      assertThat(batch(lock, Phase.STALE_LIVE, 10)).isZero();

      assertThat(roundTrips.get()).isEqualTo(2);
    }
  }

  @Test
  void an_idle_cycle_costs_its_lock_attempt_and_the_lock_s_release() {
    rooms.insert(Rooms.occupied(AS_OF, 2));
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(store, OPTIONS, ReaperObserver.NONE, List.of());
    reaper.runOnce(AS_OF, Cancellation.NONE);
    roundTrips.set(0);

    CycleResult idle = reaper.runOnce(AS_OF.plusSeconds(1), Cancellation.NONE);

    assertThat(idle.lockAcquired()).isTrue();
    // The lock attempt, which finds every phase with nothing due, and its rollback: no claim.
    assertThat(roundTrips.get()).isEqualTo(2);
  }

  @Test
  void a_lost_run_lock_fails_the_claim_and_claims_nothing() throws Exception {
    rooms.insert(Rooms.emptyActive(AS_OF.minusSeconds(300)));
    try (ReaperStore.RunLock lock =
        store.tryAcquireRunLock(OPTIONS.lockTtl(), Instant.now(), OPTIONS)) {
      int pid = ((AdvisoryRunLock) lock).pid();
      rooms.query("SELECT pg_terminate_backend(?)", pid);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (rooms.count("SELECT count(*) FROM pg_locks WHERE pid = ?", pid) > 0
          && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }

      assertThatThrownBy(() -> batch(lock, Phase.EMPTY_ROOM, 10))
          .isInstanceOf(LockLostException.class);
    }
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'"))
        .isEqualTo(1);
  }

  /** One batch as PhaseRunner runs it: claim, decide, write, commit. Returns the rows closed. */
  private int batch(ReaperStore.RunLock lock, Phase phase, int limit) {
    try (ReaperStore.Batch batch = store.beginBatch(Duration.ofSeconds(5), Duration.ofMinutes(2))) {
      ReaperStore.Claim claim =
          batch.claim(lock, phase, phase.cutoff(AS_OF, OPTIONS), AS_OF, limit, null);
      List<Transition> closes = new ArrayList<>();
      for (ConferenceSession s : claim.rows()) {
        if (ReaperDecision.decide(phase, s, AS_OF, OPTIONS) instanceof Decision.Close close) {
          closes.add(close.transition());
        }
      }
      int closed = 0;
      if (!closes.isEmpty()) {
        closed = batch.apply(closes, new CycleOrigin("test", null), AS_OF).applied().size();
      }
      batch.commit(lock);
      return closed;
    }
  }

  private static final Set<String> ROUND_TRIP_CALLS =
      Set.of(
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeLargeUpdate",
          "executeBatch",
          "commit",
          "rollback",
          "setSavepoint",
          "releaseSavepoint");

  private DataSource counting(DataSource target) {
    return proxy(DataSource.class, target);
  }

  @SuppressWarnings("unchecked")
  private <T> T proxy(Class<T> type, T target) {
    InvocationHandler handler =
        (p, method, args) -> {
          if (ROUND_TRIP_CALLS.contains(method.getName())) {
            roundTrips.incrementAndGet();
          }
          Object result;
          try {
            result = method.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (result instanceof Connection c) {
            return proxy(Connection.class, c);
          }
          if (result instanceof java.sql.PreparedStatement ps) {
            return proxy(java.sql.PreparedStatement.class, ps);
          }
          if (result instanceof Statement st) {
            return proxy(Statement.class, st);
          }
          return result;
        };
    return (T) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler);
  }
}
