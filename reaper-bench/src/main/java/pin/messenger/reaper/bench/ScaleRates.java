package pin.messenger.reaper.bench;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import pin.messenger.reaper.app.metrics.DatabaseGauges;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.core.Schedule;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * Scale under load: the database time per hour of the worker under the next-due schedule while
 * rooms fall due at a steady rate (1 and 10 a second by default), at one live size (200k occupied
 * rooms beside the history, the heartbeat running), against the design before deadlines in the same
 * run.
 *
 * <p><b>Setup</b> (not counted): the table as a worker running for a while leaves it ({@link
 * ScaleTable#live}: marks spread over the last stale-live window, so re-arms come at the steady
 * rate of live rooms / stale-live timeout), the heartbeat on those rooms, the before design's
 * statements warmed up on the pool; the loop and the gauges started {@link #WARM} before the
 * window; then the rooms of {@link RatePlan} written as the messenger leaves them and armed as the
 * worker arms them (mark = reference time), then {@link ScaleTable#arm}.
 *
 * <p><b>Measured</b> (deadlines), for {@code --rate-seconds}: the real {@link ReaperLoop} at the
 * shipped defaults (schedule next-due) and the worker's {@link DatabaseGauges} (backlog read every
 * {@link DatabaseGauges#REFRESH}), both on the pool, running on from the warm-up; {@code
 * pg_stat_statements} reset at the window's start, everything the worker sent summed (the heartbeat
 * and the bench's own statements excluded, as {@link ScaleStatements#work}): execution ms and
 * shared buffers hit + read; cycles and rooms closed from the loop's results, re-arms from the
 * re-arm statements' rows.
 *
 * <p><b>Computed</b> (before deadlines): the worker's statements common to both designs (every
 * statement of the window that does not name {@code reaper_window_start}: empty-room claim, the
 * closes' writes and outbox inserts, commit-time checks, the gauges' other reads; the run lock's
 * attempt names it, for its probe, and so counts as the deadline design's alone), plus per cycle
 * the loop ran the before design's stale-live claim candidates and next-due read, plus per backlog
 * read the window's gauges made the before design's backlog count — each at its mean per call,
 * measured right after the window on the same table and pool with the heartbeat running ({@link
 * ScaleStatements#oldIdle}, {@code --cycles} rounds). These take the place of the statements that
 * name {@code reaper_window_start} (the deadline phases' claims, the re-arms, the next-due read,
 * the backlog). The before design's run-lock attempt, its provision-timeout claim (an index range
 * of the few Provisioning rooms) and the lock step of its stale-live claim are not counted: the
 * before figure is a lower bound.
 *
 * <p><b>Checked</b>: no planted room closed before its due instant, none twice (one integration
 * event per closed Active room, none for a failed Provisioning room), no other room closed.
 */
final class ScaleRates {
  /**
   * How long the loop and the gauges run before the window: warm connections and plan caches, as a
   * worker that has been running has them (see {@link ScaleBench#WARM_UP}).
   */
  static final Duration WARM = Duration.ofSeconds(30);

  private final DataSource db;
  private final DataSource pool;
  private final int heartbeatsPerSecond;
  private final long history;
  private final int oldRounds;
  private final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();

  ScaleRates(DataSource db, DataSource pool, int heartbeatsPerSecond, long history, int rounds) {
    this.db = db;
    this.pool = pool;
    this.heartbeatsPerSecond = heartbeatsPerSecond;
    this.history = history;
    this.oldRounds = rounds;
    if (options.schedule() != Schedule.NEXT_DUE) {
      throw new IllegalStateException("the shipped schedule is not next-due: " + options);
    }
  }

  void run(String[] args) throws Exception {
    long size = Long.parseLong(ScaleBench.arg(args, "--rate-size", "200000"));
    Duration window =
        Duration.ofSeconds(Long.parseLong(ScaleBench.arg(args, "--rate-seconds", "60")));
    System.out.printf(
        Locale.ROOT,
        "%nRooms falling due at %,d live rooms, %d s per rate, per hour (x 3600 / window):"
            + " deadlines measured, before computed (ScaleRates).%n",
        size,
        window.toSeconds());
    System.out.println(
        "| rooms due per second | cycles/h | closed/h | re-arms/h | deadlines: DB ms/h | buffers/h"
            + " | before: DB ms/h | buffers/h |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String r : ScaleBench.arg(args, "--rates", "1,10").split(",", -1)) {
      rate(size, Double.parseDouble(r.trim()), window);
    }
  }

  private void rate(long size, double perSecond, Duration window) throws Exception {
    ScaleTable.history(db, history);
    UUID[] live = ScaleTable.live(db, size, options.staleLiveTimeout());
    ConferenceRoomReaper reaper = BenchReport.reaper(pool, options);
    PostgresReaperStore store = new PostgresReaperStore(pool);
    long[] windows = ScaleStatements.windows(options);
    AtomicBoolean counting = new AtomicBoolean();
    AtomicLong cycles = new AtomicLong();
    AtomicLong closed = new AtomicLong();
    try (ScaleTable.Heartbeat heartbeat = new ScaleTable.Heartbeat(db, live, heartbeatsPerSecond)) {
      for (int i = 0; i < ScaleBench.WARM_UP; i++) {
        ScaleStatements.oldIdle(pool, Instant.now(), windows);
      }
      List<RatePlan.Room> plan;
      Instant start;
      long t0;
      try (ReaperLoop loop =
              new ReaperLoop(
                  reaper,
                  c -> {
                    if (counting.get()) {
                      cycles.incrementAndGet();
                      closed.addAndGet(c.reaped());
                    }
                  });
          DatabaseGauges gauges = new DatabaseGauges(store, pool, options, Clock.systemUTC())) {
        gauges.start();
        loop.start();
        Thread.sleep(WARM.toMillis());
        start = Instant.now().plusSeconds(3);
        plan = RatePlan.plan(perSecond, window, start, options);
        RateRooms.plant(db, plan);
        ScaleTable.arm(db, Instant.now(), options);
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), start).toMillis()));
        ScaleStatements.reset(db);
        counting.set(true);
        t0 = System.nanoTime();
        Thread.sleep(window.toMillis());
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      ScaleStatements.Work all = ScaleStatements.work(db);
      ScaleStatements.Part deadlineReads = ScaleStatements.part(db, "%reaper_window_start%");
      ScaleStatements.Part rearms = ScaleStatements.part(db, "%SET reaper_window_start%");
      ScaleStatements.Part backlogs = ScaleStatements.part(db, "%total_due%");

      ScaleStatements.reset(db);
      for (int i = 0; i < oldRounds; i++) {
        ScaleStatements.oldIdle(pool, Instant.now(), windows);
      }
      ScaleStatements.Part oldClaim = ScaleStatements.part(db, "%AS ref%LIMIT%");
      ScaleStatements.Part oldDue = ScaleStatements.part(db, "%min(greatest(%clock_timestamp()%");
      ScaleStatements.Part oldBacklog = ScaleStatements.part(db, "SELECT count(*) FILTER%");

      double perHour = 3600 / seconds;
      double commonMs = all.execMs() - deadlineReads.execMs();
      long commonBuffers = all.buffers() - deadlineReads.buffers();
      double beforeMs =
          commonMs
              + cycles.get() * (oldClaim.msPerCall() + oldDue.msPerCall())
              + backlogs.calls() * oldBacklog.msPerCall();
      double beforeBuffers =
          commonBuffers
              + cycles.get() * (oldClaim.buffersPerCall() + oldDue.buffersPerCall())
              + backlogs.calls() * oldBacklog.buffersPerCall();
      System.out.printf(
          Locale.ROOT,
          "| %s | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f |%n",
          perSecond == Math.rint(perSecond) ? String.valueOf((long) perSecond) : perSecond,
          cycles.get() * perHour,
          closed.get() * perHour,
          rearms.rows() * perHour,
          all.execMs() * perHour,
          all.buffers() * perHour,
          beforeMs * perHour,
          beforeBuffers * perHour);
      System.out.printf(
          Locale.ROOT,
          "    window %.1f s: %d cycles, %d closed, %d re-armed, %d backlog reads; deadlines %,.1f ms"
              + " %,d buffers, of which common to both designs %,.1f ms %,d buffers; before per"
              + " call: claim %,.0f buffers %.2f ms, next-due %,.0f buffers %.2f ms, backlog %,.0f"
              + " buffers %.2f ms%n",
          seconds,
          cycles.get(),
          closed.get(),
          rearms.rows(),
          backlogs.calls(),
          all.execMs(),
          all.buffers(),
          commonMs,
          commonBuffers,
          oldClaim.buffersPerCall(),
          oldClaim.msPerCall(),
          oldDue.buffersPerCall(),
          oldDue.msPerCall(),
          oldBacklog.buffersPerCall(),
          oldBacklog.msPerCall());
      for (String line : all.top()) {
        System.out.println("    deadlines: " + line);
      }
      System.out.println("    " + RateRooms.check(db, plan, start.plus(window), closed.get()));
    }
  }
}
