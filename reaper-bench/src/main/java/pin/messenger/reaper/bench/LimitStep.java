package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * One measured step of the limit section: an offered rate held from {@code from} to {@code to}, the
 * rooms' close lateness (commit time − due moment), the backlog's troughs, the worker's cycles in
 * it, and whether the runner kept up.
 */
record LimitStep(
    Instant from,
    Instant to,
    double offered,
    double achieved,
    long rooms,
    long closed,
    double p50,
    double p99,
    double max,
    double withinInterval,
    long troughFirst,
    long troughLast,
    long maxCycleMs,
    double msPer100,
    boolean sustainable) {

  /**
   * Sustainable: the trough of the step's last interval exceeds that of its second (the first still
   * carries the previous rate) by at most half a batch or 5 % of the step's arrivals.
   */
  static boolean sustainable(long troughFirst, long troughLast, int batchSize, long arrivals) {
    return troughLast - troughFirst <= Math.max(batchSize / 2, arrivals / 20);
  }

  static LimitStep measure(
      ConferenceRoomReaperOptions options,
      HikariDataSource ds,
      WorkerProcess worker,
      List<double[]> samples,
      double rate,
      double achieved,
      Instant from,
      Instant to)
      throws Exception {
    long intervalMs = options.pollingInterval().toMillis();
    // From the step's second interval: in drain mode the trough is what arrived during the last
    // cycle (rate × cycle length), and the first interval's cycle still ran at the previous rate.
    long troughFirst =
        trough(samples, from.toEpochMilli() + intervalMs, from.toEpochMilli() + 2 * intervalMs);
    long troughLast = trough(samples, to.toEpochMilli() - intervalMs, to.toEpochMilli());
    long rooms;
    long closed;
    double p50;
    double p99;
    double max;
    double within;
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                WITH r AS (
                  SELECT extract(epoch FROM coalesce(
                           CASE WHEN s.status IN ('Provisioning', 'Active') THEN NULL
                                ELSE pg_xact_commit_timestamp(s.xmin) END, clock_timestamp()) - b.due_at)
                           AS lateness,
                         s.status NOT IN ('Provisioning', 'Active') AS closed
                    FROM bench_limit_rooms b JOIN messenger.conference_sessions s ON s.id = b.id
                   WHERE b.due_at >= ? AND b.due_at < ?
                )
                SELECT count(*), count(*) FILTER (WHERE closed),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY lateness),
                       percentile_cont(0.99) WITHIN GROUP (ORDER BY lateness),
                       max(lateness),
                       count(*) FILTER (WHERE closed AND lateness <= ?)
                  FROM r
                """)) {
      ps.setTimestamp(1, Timestamp.from(from));
      ps.setTimestamp(2, Timestamp.from(to));
      ps.setDouble(3, intervalMs / 1000.0);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        rooms = rs.getLong(1);
        closed = rs.getLong(2);
        p50 = rs.getDouble(3);
        p99 = rs.getDouble(4);
        max = rs.getDouble(5);
        within = rooms == 0 ? 0 : rs.getLong(6) / (double) rooms;
      }
    }
    long maxCycle = 0;
    long cycleMs = 0;
    long cycleClosed = 0;
    for (WorkerProcess.Cycle cycle : worker.cycles()) {
      if (cycle.at().isAfter(from) && cycle.at().isBefore(to)) {
        maxCycle = Math.max(maxCycle, cycle.durationMs());
        cycleMs += cycle.durationMs();
        cycleClosed += cycle.closed();
      }
    }
    long arrivals = Math.round(achieved * Duration.between(from, to).toMillis() / 1000.0);
    boolean sustainable = sustainable(troughFirst, troughLast, options.batchSize(), arrivals);
    return new LimitStep(
        from,
        to,
        rate,
        achieved,
        rooms,
        closed,
        p50,
        p99,
        max,
        within,
        troughFirst,
        troughLast,
        maxCycle,
        cycleClosed == 0 ? Double.NaN : 100.0 * cycleMs / cycleClosed,
        sustainable);
  }

  /** The smallest backlog sampled in {@code [fromMs, toMs)}: what the last cycle left. */
  static long trough(List<double[]> samples, long fromMs, long toMs) {
    double min = Double.NaN;
    for (double[] s : samples) {
      if (s[0] >= fromMs && s[0] < toMs && (Double.isNaN(min) || s[1] < min)) {
        min = s[1];
      }
    }
    return Double.isNaN(min) ? -1 : (long) min;
  }
}
