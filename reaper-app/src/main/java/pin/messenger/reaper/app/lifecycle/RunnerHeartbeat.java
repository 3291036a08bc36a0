package pin.messenger.reaper.app.lifecycle;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.Runners;

/**
 * This worker's row in {@code messenger.conference_reaper_runners}, refreshed at each cycle's start
 * and end. The cycle only updates fields in memory and wakes a thread of its own, which writes the
 * newest state in one bounded statement ({@link Runners#refresh}) outside any cycle's transaction;
 * several cycles while a write is under way coalesce into one. A failed write is logged (once per
 * outage, and again when it recovers) and the cycles go on. On a clean stop the row is marked
 * stopped.
 */
public final class RunnerHeartbeat implements ReaperObserver, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RunnerHeartbeat.class);

  private final Runners runners;
  private final Duration retention;
  private final String instanceId = UUID.randomUUID().toString();
  private final String host = host();
  private final long pid = ProcessHandle.current().pid();
  private final String version = version();
  private final Clock clock;
  private final Instant startedAt;
  private final Duration silentAfter;
  private final ExecutorService writer;
  private final AtomicBoolean queued = new AtomicBoolean();

  private @Nullable String lastCycleId;
  private @Nullable Instant lastCycleStartedAt;
  private @Nullable Instant lastCycleCompletedAt;
  private @Nullable Boolean lastCycleHeldLock;
  private List<String> pausedPhases = List.of();
  private boolean written;
  private boolean failing;
  private boolean closed;

  public RunnerHeartbeat(
      Runners runners, ConferenceRoomReaperOptions options, Duration retention, Clock clock) {
    this.runners = runners;
    this.retention = retention;
    this.clock = clock;
    this.startedAt = clock.instant();
    this.silentAfter = silentAfter(options);
    this.writer =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "reaper-runner-heartbeat");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * How long this runner may go without a refresh before it counts as silent: two polling intervals
   * and a whole cycle. Refreshes come at each start (at least once a polling interval) and each end
   * (at most max-run-duration later), so a live runner is never late by that much.
   */
  static Duration silentAfter(ConferenceRoomReaperOptions options) {
    return options.pollingInterval().multipliedBy(2).plus(options.maxRunDuration());
  }

  String instanceId() {
    return instanceId;
  }

  @Override
  public synchronized void cycleStarted(String jobRunId, Instant asOf) {
    lastCycleId = jobRunId;
    lastCycleStartedAt = asOf;
    wake();
  }

  @Override
  public synchronized void pausesRead(String jobRunId, Set<Phase> paused) {
    List<String> labels = new ArrayList<>();
    for (Phase p : Phase.values()) {
      if (paused.contains(p)) {
        labels.add(p.label());
      }
    }
    pausedPhases = List.copyOf(labels);
  }

  @Override
  public synchronized void cycleCompleted(CycleResult result) {
    if (result.dryRun()) {
      return;
    }
    lastCycleId = result.jobRunId();
    lastCycleCompletedAt = result.asOf().plusMillis(result.durationMs());
    lastCycleHeldLock = result.lockAcquired();
    wake();
  }

  private synchronized Runners.Row row(@Nullable Instant stoppedAt) {
    return new Runners.Row(
        instanceId,
        host,
        pid,
        version,
        startedAt,
        silentAfter,
        lastCycleId,
        lastCycleStartedAt,
        lastCycleCompletedAt,
        lastCycleHeldLock,
        pausedPhases,
        stoppedAt);
  }

  /** Queues one write unless one is queued already (it will carry the newest state). */
  private void wake() {
    if (closed || !queued.compareAndSet(false, true)) {
      return;
    }
    try {
      writer.execute(this::write);
    } catch (RuntimeException e) {
      queued.set(false); // shutting down
    }
  }

  private void write() {
    queued.set(false);
    write(row(null));
  }

  private void write(Runners.Row row) {
    try {
      runners.refresh(row, retention);
      synchronized (this) {
        written = true;
      }
      if (failing) {
        failing = false;
        log.atInfo().addKeyValue("instanceId", instanceId).log("runner heartbeat written again");
      }
    } catch (Exception e) {
      if (!failing) {
        failing = true;
        log.atWarn()
            .addKeyValue("instanceId", instanceId)
            .addKeyValue("reason", String.valueOf(e.getMessage()))
            .log("runner heartbeat not written; cycles go on, status may show this runner silent");
      }
    }
  }

  /** Marks the row stopped (bounded like every write) once the loop has stopped. */
  @Override
  public void close() {
    boolean wasWritten;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      wasWritten = written;
    }
    writer.shutdown();
    try {
      if (!writer.awaitTermination(Runners.STATEMENT_TIMEOUT_SECONDS + 1L, TimeUnit.SECONDS)) {
        writer.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (wasWritten) {
      write(row(clock.instant()));
    }
  }

  private static String host() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static String version() {
    String v = RunnerHeartbeat.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }
}
