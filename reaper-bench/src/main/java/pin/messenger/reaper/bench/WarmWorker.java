package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shipped-drain section's {@code run} worker with drain on, polling every second, on a copy of
 * the template of its own: warmed by the template's backlog, then each {@link #drain()} commits a
 * new backlog in one transaction and times the cycle that drains it.
 */
final class WarmWorker implements AutoCloseable {
  private static final String DATABASE = "shipped_warm";

  private final ShippedRun shipped;
  private final int backlog;
  private final Process process;
  private final DrainLines lines = new DrainLines();
  private final ChildOutput out;
  private int cycles;

  WarmWorker(ShippedRun shipped, String template, int backlog, int batch, List<String> options)
      throws Exception {
    this.shipped = shipped;
    this.backlog = backlog;
    shipped.server().copy(DATABASE, template);
    List<String> args = new ArrayList<>(List.of("run"));
    args.addAll(options);
    args.add("--reaper.polling-interval=1s");
    args.add("--server.port=0");
    process = shipped.start(DATABASE, "warm-" + batch + "-" + System.nanoTime(), args);
    out = ChildOutput.follow(process, "shipped-drain-stdout", lines);
    // The template's backlog is the warm-up.
    awaitReaped(backlog);
  }

  /** Commits a new backlog while the worker runs; returns rows/s of the cycle that drains it. */
  double drain() throws Exception {
    int seen = lines.reapingCycles();
    long committed;
    try (Connection c = shipped.server().dataSource(DATABASE).getConnection()) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        for (String sql : BenchData.backlogInOneTransaction(backlog)) {
          st.execute(sql);
        }
      }
      c.commit();
      committed = System.nanoTime();
    }
    awaitReaped(backlog);
    long started = Long.MAX_VALUE;
    long completed = 0;
    int reaped = 0;
    for (int i = seen; i < lines.reapingCycles(); i++) {
      DrainLines.Cycle cycle = lines.reaping(i);
      if (cycle != null) {
        started = Math.min(started, Math.max(committed, cycle.started()));
        completed = Math.max(completed, cycle.completed());
        reaped += cycle.reaped();
      }
    }
    if (reaped != backlog) {
      throw new IllegalStateException("warm worker reaped " + reaped + " of " + backlog);
    }
    return backlog / ((completed - started) / 1e9);
  }

  /** Waits until the reaping cycles after the last wait have closed {@code n} rooms. */
  private void awaitReaped(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (true) {
      int reaped = lines.reapedSince(cycles);
      if (reaped >= n) {
        cycles = lines.reapingCycles();
        return;
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "warm worker reaped " + reaped + " of " + n + " (alive: " + process.isAlive() + ")");
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  @Override
  public void close() throws InterruptedException {
    Child.stop(process, Duration.ofSeconds(60));
    out.join(10_000);
  }
}
