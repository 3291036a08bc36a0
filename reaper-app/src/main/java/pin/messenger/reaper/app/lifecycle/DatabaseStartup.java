package pin.messenger.reaper.app.lifecycle;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import pin.messenger.reaper.telemetry.Failures;

/**
 * How the long-running {@code run} meets its database: not as a step of the context's start (a
 * database that is down then would end the process, and on Kubernetes a pod in CrashLoopBackOff
 * waits minutes for its next restart after the database is back), but on a thread of its own. It
 * tries to prepare (connect; migrate, or verify the schema the messenger owns) from {@link #begin},
 * while the rest of the context (the HTTP side, the actuator) is still being built, so the first
 * cycle does not wait for both one after the other; the work (gauges, delivery, the loop) starts
 * once the preparation succeeded and the context has started ({@link #contextStarted}). While the
 * database does not answer it retries, {@link #FIRST_RETRY} doubling to {@link #RETRY_CAP} between
 * attempts (each attempt also waits up to the pool's connection-timeout while the pool reconnects
 * on its own); readiness stays DOWN, liveness UP, metrics are served. It logs state changes only:
 * "database unavailable at start-up, retrying" once, "database available, starting" once.
 *
 * <p>A database that answers but is wrong (authentication refused, schema too new, a table or grant
 * missing) is no reason to wait: that failure ends the process with status 1, as before. The
 * one-shot commands never come here; they fail fast.
 */
public final class DatabaseStartup implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DatabaseStartup.class);

  /** The wait after the first failed attempt; it doubles up to {@link #RETRY_CAP}. */
  static final Duration FIRST_RETRY = Duration.ofSeconds(1);

  /** The longest wait between two attempts. */
  static final Duration RETRY_CAP = Duration.ofSeconds(5);

  /** How long a stop waits for an attempt in progress (e.g. a migration) to end. */
  static final Duration STOP_WAIT = Duration.ofSeconds(30);

  /** Connects and makes the schema ready (migrate or verify); throws when it cannot. */
  @FunctionalInterface
  public interface Prepare {
    void run() throws Exception;
  }

  private final Prepare prepare;
  private final Runnable start;
  private final Consumer<Throwable> fatal;
  private final Clock clock;
  private volatile boolean stopping;
  private @Nullable Thread thread;

  /** Opened by {@link #contextStarted}: the work (or a fatal failure's exit) waits for it. */
  private final CountDownLatch started = new CountDownLatch(1);

  /**
   * @param start what runs once the database is ready (gauges, delivery, loop)
   * @param fatal told of a failure that waiting will not mend (it ends the process)
   */
  public DatabaseStartup(Prepare prepare, Runnable start, Consumer<Throwable> fatal, Clock clock) {
    this.prepare = prepare;
    this.start = start;
    this.fatal = fatal;
    this.clock = clock;
  }

  /**
   * True for the long-running {@code run} (also when no command is named): its database is met by
   * this class, after the context has started, not by Flyway or the schema check during it.
   */
  public static boolean deferred(Environment environment) {
    return "run".equals(environment.getProperty("reaper.command", "run"));
  }

  /**
   * Starts trying on its own thread; returns at once. It may be called while the context is still
   * being built: what follows a successful preparation waits for {@link #contextStarted}.
   */
  synchronized void begin() {
    if (thread != null || stopping) {
      return;
    }
    Thread t = new Thread(this::attempts, "reaper-startup");
    thread = t;
    t.start();
  }

  /**
   * The context has started: the work may start once the database is prepared (at once if it
   * already is), and a fatal failure may end the process.
   */
  void contextStarted() {
    started.countDown();
  }

  /** Waits for {@link #contextStarted}; false when a stop ended the wait. */
  private boolean awaitContextStarted() {
    try {
      started.await();
      return !stopping;
    } catch (InterruptedException e) {
      return false;
    }
  }

  private void attempts() {
    Instant unavailableSince = null;
    int failures = 0;
    while (!stopping) {
      try {
        prepare.run();
      } catch (Throwable e) {
        if (stopping) {
          return;
        }
        if (!unavailable(e)) {
          // Reported once the context has started, as when this ran after the start.
          if (awaitContextStarted()) {
            fatal.accept(e);
          }
          return;
        }
        failures++;
        Duration wait = retryAfter(failures);
        if (unavailableSince == null) {
          unavailableSince = clock.instant();
          log.atWarn()
              .addKeyValue("reason", Failures.message(e))
              .addKeyValue("retryIn", wait)
              .log(
                  "database unavailable at start-up, retrying: readiness DOWN until it answers,"
                      + " liveness UP");
        } else {
          log.atDebug()
              .addKeyValue("reason", Failures.message(e))
              .addKeyValue("attempt", failures + 1)
              .log("database still unavailable at start-up");
        }
        if (!pause(wait)) {
          return;
        }
        continue;
      }
      if (!awaitContextStarted()) {
        return;
      }
      synchronized (this) {
        if (stopping) {
          return;
        }
        var line = log.atInfo().addKeyValue("attempts", failures + 1);
        if (unavailableSince != null) {
          line =
              line.addKeyValue("unavailableSince", unavailableSince)
                  .addKeyValue(
                      "unavailableFor", Duration.between(unavailableSince, clock.instant()));
        }
        line.log("database available, starting");
        start.run();
        return;
      }
    }
  }

  /** The wait after {@code failures} failed attempts: doubling from the first, capped. */
  static Duration retryAfter(int failures) {
    Duration wait = FIRST_RETRY;
    for (int i = 1; i < failures && wait.compareTo(RETRY_CAP) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(RETRY_CAP) > 0 ? RETRY_CAP : wait;
  }

  /** Sleeps; false when a stop ended the wait. */
  private boolean pause(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
      return !stopping;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /**
   * True when the failure says the database could not be reached (connection refused, a host not
   * resolved yet, a connect or pool timeout, SQLState class 08, the server starting up or out of
   * connections): worth waiting for. False when it answered and said no (authentication, a schema
   * too new, a missing table or grant): that is a configuration to fix, not an outage to wait out.
   */
  static boolean unavailable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof UnknownHostException
          || t instanceof SocketTimeoutException) {
        return true;
      }
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        if (state == null) {
          if (t instanceof SQLTransientConnectionException) {
            return true; // the pool's timeout before any attempt ended: still connecting
          }
        } else if (state.startsWith("08") || state.equals("57P03") || state.equals("53300")) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Stops trying: a wait (between attempts, or for a pooled connection) ends at once; work already
   * started is the caller's to stop.
   */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      stopping = true;
      t = thread;
    }
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    // Past the lock above the thread can no longer start the work: an interrupt only ends a wait.
    t.interrupt();
    try {
      t.join(STOP_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
