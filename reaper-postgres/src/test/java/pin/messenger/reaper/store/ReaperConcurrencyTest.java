package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.Cancellation.Checkpoint;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.LockLostException;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * Locks, races, parallel runners, hung holders, cancellation and infrastructure failures — with
 * latches.
 */
class ReaperConcurrencyTest extends DatabaseTest {

  final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();
  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
  PostgresReaperStore store;

  @BeforeEach
  void clean() {
    store = new PostgresReaperStore(db.dataSource());
  }

  ConferenceRoomReaper reaper(ConferenceRoomReaperOptions o, ReaperStore s) {
    return new ConferenceRoomReaper(s, o, ReaperObserver.NONE, List.of());
  }

  @Test
  void run_lock_held_by_another_runner_skips_the_cycle_without_touching_rows() throws Exception {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    try (Connection other = db.newConnection()) {
      other.setAutoCommit(false);
      try (Statement st = other.createStatement()) {
        st.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('messenger.conference_room_reaper', 0))");
      }

      CycleResult result = reaper(options, store).runOnce(asOf, Cancellation.NONE);

      assertThat(result.lockAcquired()).isFalse();
      assertThat(result.reaped()).isZero();
      assertThat(rooms.status(room.id)).isEqualTo("Active");
      other.rollback();
    }
    assertThat(reaper(options, store).runOnce(asOf, Cancellation.NONE).emptyTimeout()).isEqualTo(1);
  }

  @Test
  void two_runners_at_once_only_one_runs_the_cycle() throws Exception {
    rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    CountDownLatch insideCycle = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // The listener runs after the batch commits but while the runner still holds the run lock.
    ConferenceRoomReaper first =
        new ConferenceRoomReaper(
            store,
            options,
            ReaperObserver.NONE,
            List.of(
                e -> {
                  insideCycle.countDown();
                  awaitQuietly(release);
                }));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<CycleResult> running = pool.submit(() -> first.runOnce(asOf, Cancellation.NONE));
      assertThat(insideCycle.await(10, TimeUnit.SECONDS)).isTrue();

      CycleResult second =
          reaper(options, new PostgresReaperStore(db.dataSource()))
              .runOnce(asOf, Cancellation.NONE);

      assertThat(second.lockAcquired()).isFalse();
      release.countDown();
      assertThat(running.get(10, TimeUnit.SECONDS).lockAcquired()).isTrue();
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(1);
  }

  /**
   * A command's open transaction holding the row's lock (as join/leave/end-conference do); commit
   * to release.
   */
  private static Connection holdRow(Room room) throws Exception {
    Connection command = db.newConnection();
    command.setAutoCommit(false);
    try (PreparedStatement ps =
        command.prepareStatement(
            "SELECT 1 FROM messenger.conference_sessions WHERE id = ? FOR UPDATE")) {
      ps.setObject(1, room.id);
      ps.executeQuery().close();
    }
    return command;
  }

  @Test
  void a_transaction_left_open_fails_the_next_truncate_naming_it_instead_of_hanging()
      throws Exception {
    Room held = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    try (Connection leaked = holdRow(held)) {
      assertThatThrownBy(() -> rooms.truncateAll(Duration.ofMillis(300)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("locks are still held after 300 ms")
          .hasMessageContaining("idle in transaction")
          .hasMessageContaining("FOR UPDATE");
    }
    rooms.truncateAll();
    assertThat(rooms.count("SELECT count(*) FROM messenger.conference_sessions")).isZero();
  }

  @Test
  void row_held_by_a_command_is_skipped_locked_counted_and_closed_by_the_next_cycle()
      throws Exception {
    Room held = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    Room free = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(200)));
    try (Connection command = holdRow(held)) {

      CycleResult result = reaper(options, store).runOnce(asOf, Cancellation.NONE);

      assertThat(result.skippedLocked()).isEqualTo(1);
      assertThat(result.emptyTimeout()).isEqualTo(1);
      assertThat(rooms.status(held.id)).isEqualTo("Active");
      assertThat(rooms.status(free.id)).isEqualTo("Ended");
      command.commit();
    }
    CycleResult next = reaper(options, store).runOnce(asOf.plusSeconds(30), Cancellation.NONE);
    assertThat(next.skippedLocked()).isZero();
    assertThat(rooms.status(held.id)).isEqualTo("Ended");
  }

  @Test
  void in_drain_mode_a_row_held_across_several_batches_is_counted_skipped_once() throws Exception {
    // The held row is the oldest: every batch's claim passes over it, but it was skipped once, not
    // once per batch.
    Room held = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(900)));
    for (int i = 0; i < 10; i++) {
      rooms.insert(Rooms.emptyActive(asOf.minusSeconds(800 - i)));
    }
    ConferenceRoomReaperOptions drain =
        options.toBuilder().batchSize(3).drainEnabled(true).drainPause(Duration.ZERO).build();
    try (Connection command = holdRow(held)) {

      CycleResult result = reaper(drain, store).runOnce(asOf, Cancellation.NONE);

      assertThat(result.emptyTimeout()).isEqualTo(10);
      assertThat(result.skippedLocked()).isEqualTo(1);
      assertThat(rooms.status(held.id)).isEqualTo("Active");
      command.commit();
    }
  }

  @Test
  void in_drain_mode_a_row_held_during_one_batch_and_released_is_closed_by_a_later_batch()
      throws Exception {
    // The later batches take their candidates from the drain's read-ahead, not a scan; a row the
    // first batch passed over must still be offered to them, as a scan would.
    Room held = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(900)));
    for (int i = 0; i < 10; i++) {
      rooms.insert(Rooms.emptyActive(asOf.minusSeconds(800 - i)));
    }
    ConferenceRoomReaperOptions drain =
        options.toBuilder().batchSize(3).drainEnabled(true).drainPause(Duration.ZERO).build();
    Connection command = holdRow(held);
    // Released once the first batch has committed: at the checkpoint before the second batch.
    Cancellation releaseAfterFirstBatch =
        new Cancellation() {
          int batches;

          @Override
          public boolean isCancelled() {
            return false;
          }

          @Override
          public boolean isCancelledAt(Checkpoint at, Phase phase) {
            if (at == Checkpoint.BEFORE_BATCH && phase == Phase.EMPTY_ROOM && ++batches == 2) {
              try {
                command.commit();
                command.close();
              } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
              }
            }
            return false;
          }
        };

    CycleResult result;
    try {
      result = reaper(drain, store).runOnce(asOf, releaseAfterFirstBatch);
    } finally {
      // Released here too if the cycle never reached its second batch: a lock left held would
      // fail every later test of the class at its truncate.
      command.close();
    }

    assertThat(result.emptyTimeout()).isEqualTo(11);
    assertThat(result.skippedLocked()).isEqualTo(1);
    assertThat(rooms.status(held.id)).isEqualTo("Ended");
  }

  @Test
  void rows_cut_by_the_limit_at_a_tied_timestamp_are_not_counted_as_skipped_locked() {
    // batchSize + 2 due rooms, all quiet since the same microsecond, none locked: the claim takes
    // batchSize of them in id order and the LIMIT cuts the rest; nothing was passed over.
    ConferenceRoomReaperOptions small = options.toBuilder().batchSize(3).build();
    Instant tied = asOf.minusSeconds(300);
    for (int i = 0; i < 5; i++) {
      rooms.insert(Rooms.emptyActive(tied));
    }

    CycleResult result = reaper(small, store).runOnce(asOf, Cancellation.NONE);

    assertThat(result.emptyTimeout()).isEqualTo(3);
    assertThat(result.skippedLocked()).isZero();
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'"))
        .isEqualTo(2);
  }

  @Test
  void a_held_row_among_tied_timestamps_is_counted_once_and_the_limit_cut_rows_are_not()
      throws Exception {
    ConferenceRoomReaperOptions small = options.toBuilder().batchSize(3).build();
    Instant tied = asOf.minusSeconds(300);
    List<Room> all = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      all.add(rooms.insert(Rooms.emptyActive(tied)));
    }
    // The claim order among tied rows is the id's (PostgreSQL's uuid order): hold the first one.
    Room first =
        all.stream()
            .filter(
                r ->
                    r.id.equals(
                        rooms
                            .query(
                                "SELECT id FROM messenger.conference_sessions ORDER BY id LIMIT 1")
                            .get(0)
                            .get("id")))
            .findFirst()
            .orElseThrow();
    try (Connection command = holdRow(first)) {

      CycleResult result = reaper(small, store).runOnce(asOf, Cancellation.NONE);

      assertThat(result.emptyTimeout()).isEqualTo(3);
      assertThat(result.skippedLocked()).isEqualTo(1);
      command.commit();
    }
  }

  @Test
  void a_join_committed_while_the_reaper_waited_is_seen_because_the_claim_rechecks_the_row()
      throws Exception {
    // The command updates the row (count 0 → 1) and holds it; the reaper skips it; after commit it
    // is no longer due.
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(300)));
    try (Connection command = db.newConnection()) {
      command.setAutoCommit(false);
      try (PreparedStatement ps =
          command.prepareStatement(
              "UPDATE messenger.conference_sessions SET active_participant_count = 1 WHERE id = ?")) {
        ps.setObject(1, room.id);
        ps.executeUpdate();
      }
      assertThat(reaper(options, store).runOnce(asOf, Cancellation.NONE).skippedLocked())
          .isEqualTo(1);
      command.commit();
    }
    CycleResult next = reaper(options, store).runOnce(asOf.plusSeconds(30), Cancellation.NONE);
    assertThat(next.reaped()).isZero();
    assertThat(rooms.status(room.id)).isEqualTo("Active");
  }

  private static final String OPEN =
      "SELECT count(*) FROM messenger.conference_sessions"
          + " WHERE status IN ('Active','Provisioning')";

  @Test
  void parallel_runners_with_the_lock_bypassed_close_each_session_exactly_once() throws Exception {
    int n = 2_000;
    List<Room> due = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      due.add(
          i % 3 == 0
              ? Rooms.provisioning(asOf.minusSeconds(600 + i))
              : Rooms.emptyActive(asOf.minusSeconds(100 + i)));
    }
    rooms.insertAll(due);
    ConferenceRoomReaperOptions o =
        options.toBuilder().batchSize(50).drainEnabled(true).drainPause(Duration.ZERO).build();
    int runners = 4;
    CyclicBarrier start = new CyclicBarrier(runners);
    ExecutorService pool = Executors.newFixedThreadPool(runners);
    List<Future<Integer>> results = new ArrayList<>();
    for (int r = 0; r < runners; r++) {
      ReaperStore bypass = new LockBypassingStore(new PostgresReaperStore(db.dataSource()));
      ConferenceRoomReaper reaper = reaper(o, bypass);
      results.add(
          pool.submit(
              () -> {
                start.await(10, TimeUnit.SECONDS);
                // Cycles until nothing is left open. How many each runner needs depends on the
                // race: a drain batch whose read-ahead the other runners took first comes back
                // short and ends that phase's drain for the cycle, as it would for one runner
                // whose rows the messenger closed. The bound only stops a runaway loop.
                int closed = 0;
                for (int cycle = 0; cycle < 1_000 && rooms.count(OPEN) > 0; cycle++) {
                  closed += reaper.runOnce(asOf, Cancellation.NONE).reaped();
                }
                return closed;
              }));
    }
    int total = 0;
    for (Future<Integer> f : results) {
      total += f.get(180, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(rooms.count(OPEN)).isZero();
    assertThat(total).isEqualTo(n);
    assertThat(rooms.count("SELECT count(*) FROM messenger.realtime_outbox")).isEqualTo(n);
    assertThat(rooms.count("SELECT count(DISTINCT conference_id) FROM messenger.realtime_outbox"))
        .isEqualTo(n);
    long ended =
        rooms.count("SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Ended'");
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(ended);
    assertThat(
            rooms.count(
                "SELECT count(DISTINCT (payload->>'conferenceId')) FROM messenger.integration_outbox"))
        .isEqualTo(ended);
  }

  @Test
  void hung_lock_holder_loses_the_run_lock_after_the_ttl_without_anyone_s_help() throws Exception {
    Duration ttl = Duration.ofSeconds(1);
    ReaperStore.RunLock hung = store.tryAcquireRunLock(ttl, Instant.now(), options);
    try {
      assertThat(hung.acquired()).isTrue();
      try (ReaperStore.RunLock rival = store.tryAcquireRunLock(ttl, Instant.now(), options)) {
        assertThat(rival.acquired()).isFalse();
      }
      long start = System.nanoTime();
      boolean taken = false;
      // Poll the server (not a sleep standing in for synchronisation): the condition is the
      // server's own act.
      while (!taken && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15)) {
        try (ReaperStore.RunLock rival = store.tryAcquireRunLock(ttl, Instant.now(), options)) {
          taken = rival.acquired();
        }
        if (!taken) {
          Thread.sleep(100);
        }
      }
      Duration waited = Duration.ofNanos(System.nanoTime() - start);
      assertThat(taken).isTrue();
      assertThat(waited).isGreaterThanOrEqualTo(ttl.minusMillis(200));
      assertThatThrownBy(hung::verifyHeld).isInstanceOf(LockLostException.class);
    } finally {
      hung.close();
    }
  }

  @Test
  void lock_is_released_on_a_pooled_connection_after_every_cycle() throws Exception {
    reaper(options, store).runOnce(asOf, Cancellation.NONE);
    assertThat(
            rooms.count(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                    + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('messenger.conference_room_reaper', 0)"))
        .isZero();
    assertThat(db.dataSource().getHikariPoolMXBean().getActiveConnections()).isZero();
  }

  @Test
  void cancellation_before_commit_rolls_the_whole_batch_back_and_releases_the_lock()
      throws Exception {
    for (int i = 0; i < 5; i++) {
      rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120 + i)));
    }
    rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    Cancellation stopBeforeCommit = Cancellation.at(Checkpoint.BEFORE_COMMIT, Phase.EMPTY_ROOM);

    assertThatThrownBy(() -> reaper(options, store).runOnce(asOf, stopBeforeCommit))
        .isInstanceOf(CancellationException.class);

    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Active'"))
        .isEqualTo(5);
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.realtime_outbox")).isZero();
    assertThat(db.dataSource().getHikariPoolMXBean().getActiveConnections()).isZero();
    try (ReaperStore.RunLock lock =
        store.tryAcquireRunLock(options.lockTtl(), Instant.now(), options)) {
      assertThat(lock.acquired()).isTrue();
    }
  }

  @Test
  void cancellation_between_phases_keeps_the_committed_batch_whole() {
    for (int i = 0; i < 5; i++) {
      rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120 + i)));
    }
    Room prov = rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    // empty-room commits its batch; the stop comes before provision-timeout's first batch.
    Cancellation stopAfterFirstBatch =
        Cancellation.at(Checkpoint.BEFORE_BATCH, Phase.PROVISION_TIMEOUT);

    assertThatThrownBy(() -> reaper(options, store).runOnce(asOf, stopAfterFirstBatch))
        .isInstanceOf(CancellationException.class);

    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.conference_sessions WHERE status = 'Ended'"))
        .isEqualTo(5);
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(5);
    assertThat(rooms.count("SELECT count(*) FROM messenger.realtime_outbox")).isEqualTo(5);
    assertThat(rooms.status(prov.id)).isEqualTo("Provisioning");
  }

  @Test
  void infrastructure_failure_rolls_the_batch_back_and_the_next_cycle_retries() {
    Room room = rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    rooms.exec("ALTER TABLE messenger.realtime_outbox RENAME TO realtime_outbox_gone");
    try {
      assertThatThrownBy(() -> reaper(options, store).runOnce(asOf, Cancellation.NONE))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("42P01");
      assertThat(rooms.status(room.id)).isEqualTo("Active");
      assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    } finally {
      rooms.exec("ALTER TABLE messenger.realtime_outbox_gone RENAME TO realtime_outbox");
    }
    CycleResult retry = reaper(options, store).runOnce(asOf.plusSeconds(30), Cancellation.NONE);
    assertThat(retry.emptyTimeout()).isEqualTo(1);
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
  }

  @Test
  void lock_connection_ended_by_the_server_mid_cycle_stops_the_cycle_with_lock_lost()
      throws Exception {
    rooms.insert(Rooms.emptyActive(asOf.minusSeconds(120)));
    Room prov = rooms.insert(Rooms.provisioning(asOf.minusSeconds(600)));
    // After the first phase commits, the listener kills the lock's backend (as an operator or a
    // failover would).
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(
            store, options, ReaperObserver.NONE, List.of(e -> terminateLockBackend()));

    assertThatThrownBy(() -> reaper.runOnce(asOf, Cancellation.NONE))
        .isInstanceOf(LockLostException.class);

    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isEqualTo(1);
    assertThat(rooms.status(prov.id)).isEqualTo("Provisioning");
    assertThat(reaper(options, store).runOnce(asOf, Cancellation.NONE).provisionFailed())
        .isEqualTo(1);
  }

  private static final String RUN_LOCK_ROWS =
      " FROM pg_locks l WHERE l.locktype = 'advisory'"
          + " AND ((l.classid::bigint << 32) | l.objid::bigint)"
          + " = hashtextextended('messenger.conference_room_reaper', 0)";

  /**
   * Ends the run lock's backend and waits until it is gone: pg_terminate_backend only signals it,
   * and until the backend exits its lock is still granted in pg_locks (on a loaded machine the next
   * phase's check could see it).
   */
  private void terminateLockBackend() {
    rooms.query("SELECT pg_terminate_backend(l.pid)" + RUN_LOCK_ROWS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (rooms.count("SELECT count(*)" + RUN_LOCK_ROWS) > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the run lock's backend did not end within 30 s");
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new AssertionError(ie);
      }
    }
  }

  static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A real store whose run lock always says "acquired": what a runner that bypassed the lock would
   * do.
   */
  record LockBypassingStore(ReaperStore delegate) implements ReaperStore {
    @Override
    public RunLock tryAcquireRunLock(
        Duration ttl, Instant asOf, ConferenceRoomReaperOptions options) {
      return new AlwaysHeld();
    }

    @Override
    public Batch beginBatch(Duration statementTimeout, Duration idleTimeout) {
      return delegate.beginBatch(statementTimeout, idleTimeout);
    }

    @Override
    public pin.messenger.reaper.core.Backlog backlog(
        java.time.Instant asOf, ConferenceRoomReaperOptions options) {
      return delegate.backlog(asOf, options);
    }

    @Override
    public pin.messenger.reaper.core.ClockReading readClock(java.time.Clock workerClock) {
      return delegate.readClock(workerClock);
    }
  }

  /**
   * The room's deadline: when stale-live next visits it, its mark ({@link Deadlines}) plus the
   * window; null when unarmed ({@code -infinity}).
   */
  private @Nullable Instant deadline(Room room) {
    Instant v = (Instant) rooms.row(room.id).get("reaper_window_start");
    return v.equals(java.time.OffsetDateTime.MIN.toInstant())
        ? null
        : v.plus(options.staleLiveTimeout());
  }

  private void heartbeat(Connection messenger, Room room, Instant at) throws Exception {
    try (PreparedStatement ps =
        messenger.prepareStatement(
            "UPDATE messenger.conference_sessions SET last_activity_at = ?, updated_at = ?"
                + " WHERE id = ?")) {
      ps.setObject(1, Rooms.ts(at));
      ps.setObject(2, Rooms.ts(at));
      ps.setObject(3, room.id);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  @Test
  void a_heartbeat_holding_the_row_while_its_deadline_comes_is_neither_closed_nor_re_armed_early()
      throws Exception {
    Duration stale = options.staleLiveTimeout();
    Instant lastActivity = asOf.minus(stale).plusSeconds(60);
    Room room = rooms.insert(Rooms.occupied(lastActivity, 2));
    // Inserted by the messenger: unarmed; the first cycle arms it at its due time.
    assertThat(deadline(room)).isNull();
    reaper(options, store).runOnce(asOf, Cancellation.NONE);
    assertThat(deadline(room)).isEqualTo(lastActivity.plus(stale));

    Instant due = lastActivity.plus(stale);
    Instant beat = due.minusSeconds(1);
    try (Connection messenger = db.newConnection()) {
      messenger.setAutoCommit(false);
      heartbeat(messenger, room, beat);
      // The deadline came, but the heartbeat holds the row: the claim passes over it (the version
      // it sees is due) and the re-arm skips it too (SKIP LOCKED): no wait, no write.
      CycleResult held = reaper(options, store).runOnce(due, Cancellation.NONE);
      assertThat(held.skippedLocked()).isEqualTo(1);
      assertThat(held.reaped()).isZero();
      messenger.commit();
    }
    assertThat(deadline(room)).isEqualTo(due);
    assertThat(rooms.status(room.id)).isEqualTo("Active");

    // Still visited (its deadline stays passed): now the row is free, found not due, re-armed.
    CycleResult visit = reaper(options, store).runOnce(due, Cancellation.NONE);
    assertThat(visit.reaped()).isZero();
    assertThat(deadline(room)).isEqualTo(beat.plus(stale));
    assertThat(
            reaper(options, store)
                .runOnce(beat.plus(stale).minusMillis(1), Cancellation.NONE)
                .reaped())
        .isZero();
    assertThat(reaper(options, store).runOnce(beat.plus(stale), Cancellation.NONE).staleTimeout())
        .isEqualTo(1);
  }

  @Test
  void a_heartbeat_committed_just_after_a_re_arm_leaves_a_deadline_that_is_early_not_late()
      throws Exception {
    Duration stale = options.staleLiveTimeout();
    Instant lastActivity = asOf.minus(stale).plusSeconds(60);
    Room room = rooms.insert(Rooms.occupied(lastActivity, 2));
    CountDownLatch rearmed = new CountDownLatch(1);
    CountDownLatch beaten = new CountDownLatch(1);
    // The re-arm's transaction stays open (its rows locked) until the heartbeat is waiting on it.
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection messenger = db.newConnection()) {
      Future<?> cycle =
          pool.submit(
              () -> {
                try (ReaperStore.Batch batch = store.beginBatch(Duration.ofSeconds(10), stale)) {
                  assertThat(batch.rearm(Phase.STALE_LIVE, asOf, options)).isEqualTo(1);
                  rearmed.countDown();
                  assertThat(beaten.await(10, TimeUnit.SECONDS)).isTrue();
                  awaitALockWaiter(); // the heartbeat has reached the row lock and waits on it
                  batch.commit(new AlwaysHeld());
                }
                return null;
              });
      assertThat(rearmed.await(10, TimeUnit.SECONDS)).isTrue();
      messenger.setAutoCommit(true);
      beaten.countDown();
      // Waits for the re-arm's commit, then moves the room on past the deadline just written.
      heartbeat(messenger, room, asOf.plusSeconds(30));
      cycle.get(10, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    Instant armed = lastActivity.plus(stale);
    assertThat(deadline(room)).isEqualTo(armed);
    // At the (now early) deadline: visited, found not due, re-armed from the heartbeat.
    assertThat(reaper(options, store).runOnce(armed, Cancellation.NONE).reaped()).isZero();
    assertThat(deadline(room)).isEqualTo(asOf.plusSeconds(30).plus(stale));
  }

  @Test
  void a_room_left_and_re_joined_between_arming_and_visiting_is_re_armed_not_closed()
      throws Exception {
    Duration stale = options.staleLiveTimeout();
    Instant lastActivity = asOf.minus(stale).plusSeconds(10);
    Room room = rooms.insert(Rooms.occupied(lastActivity, 2));
    reaper(options, store).runOnce(asOf, Cancellation.NONE);
    assertThat(deadline(room)).isEqualTo(asOf.plusSeconds(10));

    // The messenger: everyone leaves, someone comes back; no reaper column is touched.
    rooms.exec(
        "UPDATE messenger.conference_sessions SET active_participant_count = 0,"
            + " last_activity_at = ? WHERE id = ?",
        Rooms.ts(asOf.plusSeconds(5)),
        room.id);
    rooms.exec(
        "UPDATE messenger.conference_sessions SET active_participant_count = 1,"
            + " last_activity_at = ? WHERE id = ?",
        Rooms.ts(asOf.plusSeconds(8)),
        room.id);

    CycleResult visit = reaper(options, store).runOnce(asOf.plusSeconds(10), Cancellation.NONE);

    assertThat(visit.reaped()).isZero();
    assertThat(rooms.status(room.id)).isEqualTo("Active");
    assertThat(deadline(room)).isEqualTo(asOf.plusSeconds(8).plus(stale));
    // Left empty again: empty-room finds it by its empty range, whatever its deadline.
    rooms.exec(
        "UPDATE messenger.conference_sessions SET active_participant_count = 0,"
            + " last_activity_at = ? WHERE id = ?",
        Rooms.ts(asOf.plusSeconds(20)),
        room.id);
    Instant emptyDue = asOf.plusSeconds(20).plus(options.emptyRoomGrace());
    assertThat(reaper(options, store).runOnce(emptyDue, Cancellation.NONE).emptyTimeout())
        .isEqualTo(1);
  }

  @Test
  void a_room_armed_by_a_runner_with_a_longer_window_is_closed_by_one_with_a_shorter_window()
      throws Exception {
    // A configuration change (or a rolling deploy) shortens stale-live: rows armed under the old
    // window are still visited at the new one's end, since the mark holds no window.
    Duration stale = options.staleLiveTimeout();
    ConferenceRoomReaperOptions longer =
        ConferenceRoomReaperOptions.builder().staleLiveTimeout(stale.multipliedBy(2)).build();
    Instant lastActivity = asOf.minus(stale).plusSeconds(60);
    Room room = rooms.insert(Rooms.occupied(lastActivity, 2));
    assertThat(reaper(longer, store).runOnce(asOf, Cancellation.NONE).reaped()).isZero();
    assertThat(deadline(room)).isEqualTo(lastActivity.plus(stale));

    Instant due = lastActivity.plus(stale);
    assertThat(reaper(options, store).runOnce(due.minusMillis(1), Cancellation.NONE).reaped())
        .isZero();
    assertThat(reaper(options, store).runOnce(due, Cancellation.NONE).staleTimeout()).isEqualTo(1);
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
  }

  /**
   * Polls the server until a backend of the test database waits on a lock (not a sleep standing in
   * for synchronisation: the condition is the server's own state).
   */
  private void awaitALockWaiter() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (rooms.count(
            "SELECT count(*) FROM pg_stat_activity"
                + " WHERE datname = current_database() AND wait_event_type = 'Lock'")
        == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no backend waited on a lock within 10 s");
      }
      Thread.sleep(10);
    }
  }

  /** A run lock that is always held: a batch driven by hand, outside a cycle. */
  private static final class AlwaysHeld implements ReaperStore.RunLock {
    @Override
    public boolean acquired() {
      return true;
    }

    @Override
    public void verifyHeld() {}

    @Override
    public void close() {}
  }
}
