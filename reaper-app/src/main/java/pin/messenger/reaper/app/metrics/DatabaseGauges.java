package pin.messenger.reaper.app.metrics;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.store.Diagnostics;
import pin.messenger.reaper.store.Runners;

/**
 * What the gauges and the readiness probe know about the database, read off the scrape path: one
 * thread refreshes it every {@link #REFRESH} and scrapes and probes only read the last snapshot
 * from memory, so they answer at once whatever the database does (a scrape that waited on a down
 * database made Prometheus drop every series and sent the on-call engineer the wrong way). While
 * the database cannot be read the gauges keep their last value and {@code gauges_age_seconds}
 * grows; before the first successful read they are NaN. Outages are logged as state changes (down,
 * back), never once per attempt.
 */
public final class DatabaseGauges implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DatabaseGauges.class);

  /** How often the database is read for the gauges and readiness. */
  public static final Duration REFRESH = Duration.ofSeconds(5);

  /** Server-side bound of each gauge statement. */
  static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(3);

  /** The last successful reading and when it was taken. */
  record Snapshot(Backlog backlog, Diagnostics.DeliveryBacklog tables, Instant readAt) {}

  /** The outcome of the last attempt: up or the reason it failed. */
  public record Probe(boolean up, Instant at, @Nullable String error) {}

  private final ReaperStore store;
  private final DataSource dataSource;
  private final ConferenceRoomReaperOptions options;
  private final Clock clock;
  private volatile @Nullable Snapshot last;
  private volatile @Nullable Probe probe;

  /** Live runners at the last reading of the runners' table (NaN before the first). */
  private volatile double liveRunners = Double.NaN;

  private @Nullable ScheduledExecutorService executor;

  public DatabaseGauges(
      ReaperStore store, DataSource dataSource, ConferenceRoomReaperOptions options, Clock clock) {
    this.store = store;
    this.dataSource = dataSource;
    this.options = options;
    this.clock = clock;
  }

  /** Starts refreshing in the background (first reading at once). */
  public synchronized void start() {
    if (executor != null) {
      return;
    }
    // A daemon thread: the gauges never keep the JVM up.
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "reaper-gauges");
              t.setDaemon(true);
              return t;
            });
    // refresh() never throws, so the future has nothing to tell; close() stops the executor.
    var unused =
        executor.scheduleWithFixedDelay(
            this::refresh, 0, REFRESH.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One reading; never throws (the refresh thread must survive anything). */
  void refresh() {
    Instant now = clock.instant();
    try {
      Backlog backlog = store.backlog(now, options);
      Diagnostics.DeliveryBacklog tables = readTableState(dataSource);
      last = new Snapshot(backlog, tables, now);
      readRunners();
      Probe before = probe;
      probe = new Probe(true, now, null);
      if (before != null && !before.up()) {
        log.atInfo()
            .addKeyValue("downSince", before.at())
            .log("database readable again: gauges and readiness are current");
      }
    } catch (Throwable e) {
      Probe before = probe;
      String reason = String.valueOf(e.getMessage());
      probe = new Probe(false, before != null && !before.up() ? before.at() : now, reason);
      if (before == null || before.up()) {
        log.atWarn()
            .addKeyValue("reason", reason)
            .log("database not readable: gauges keep their last value, readiness is DOWN");
      }
    }
  }

  /**
   * The live runners, read with the rest but apart from it: a failure here keeps the last value and
   * does not make readiness DOWN (the table is only for operators).
   */
  private void readRunners() {
    try {
      liveRunners = new Runners(dataSource).count().live();
    } catch (Exception e) {
      log.atDebug().addKeyValue("reason", String.valueOf(e.getMessage())).log("runners not read");
    }
  }

  /** Live runners ({@code messenger_conf_reaper_live_runners}); NaN before the first reading. */
  double liveRunners() {
    return liveRunners;
  }

  /** The last successful reading, or null before the first. */
  @Nullable Snapshot last() {
    return last;
  }

  /** The last attempt's outcome, or null before the first. */
  public @Nullable Probe probe() {
    return probe;
  }

  /** Seconds since the last successful reading (NaN before the first). */
  double ageSeconds() {
    Snapshot s = last;
    return s == null ? Double.NaN : Duration.between(s.readAt(), clock.instant()).toMillis() / 1e3;
  }

  static Diagnostics.DeliveryBacklog readTableState(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return Diagnostics.read(c, STATEMENT_TIMEOUT);
    }
  }

  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }
}
