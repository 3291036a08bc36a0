package pin.messenger.reaper.dev;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.cli.ApplicationContexts;
import pin.messenger.reaper.app.cli.DurationOption;
import pin.messenger.reaper.app.cli.ReaperCli;
import pin.messenger.reaper.app.lifecycle.ReaperLoopLifecycle;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.demo.MessengerSimulator;
import pin.messenger.reaper.demo.SloReport;

/**
 * {@code bin/reaper demo}: a fresh embedded PostgreSQL, the real worker with short timeouts, and a
 * simulated messenger; prints a line per cycle and, at the end, the SLO summary.
 */
final class DemoCommand {
  /** Scheduling jitter allowed on top of the polling interval on a shared 2-core machine. */
  static final Duration SLO_TOLERANCE = Duration.ofMillis(100);

  static final Map<String, Object> DEMO_DEFAULTS =
      Map.of(
          "reaper.polling-interval", "1s",
          "reaper.empty-room-grace", "3s",
          "reaper.provision-timeout", "4s",
          "reaper.stale-live-timeout", "8s",
          "reaper.lock-ttl", "20s",
          "reaper.max-run-duration", "10s",
          "reaper.statement-timeout", "4s",
          "reaper.embedded.data-dir", ".reaper/demo-pgdata",
          "logging.level.root", "WARN");

  private DemoCommand() {}

  /**
   * The demo's command line: how long it runs ({@code null}: until Ctrl-C) and the {@code
   * --name=value} options it hands to the worker.
   */
  record Arguments(@Nullable Duration duration, List<String> options) {}

  /**
   * Reads {@code [--duration D] [--name=value ...]}; anything else is a usage error (exit 2) that
   * names it, before anything starts.
   */
  static Arguments parse(List<String> args) {
    List<String> rest = new ArrayList<>(args);
    Duration duration = null;
    int i = rest.indexOf("--duration");
    if (i >= 0) {
      if (i + 1 >= rest.size()) {
        throw new ReaperCli.UsageException("--duration needs a value such as 60s");
      }
      duration = DurationOption.parse("duration", rest.get(i + 1));
      rest.remove(i + 1);
      rest.remove(i);
    }
    ReaperCli.checkOptions(rest);
    return new Arguments(duration, List.copyOf(rest));
  }

  static int run(List<String> commandLine) {
    Arguments parsed = parse(commandLine);
    Duration duration = parsed.duration();
    List<String> args = parsed.options();
    AtomicInteger cycles = new AtomicInteger();
    AtomicLong[] totals = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
    ReaperObserver printer =
        new ReaperObserver() {
          @Override
          public void cycleCompleted(CycleResult r) {
            int n = cycles.incrementAndGet();
            totals[0].addAndGet(r.emptyTimeout());
            totals[1].addAndGet(r.provisionFailed());
            totals[2].addAndGet(r.staleTimeout());
            System.out.printf(
                "cycle %3d  empty-room %2d  provision-timeout %2d  stale-live %2d  skipped-locked %d  failed %d"
                    + "  %3d ms%s%n",
                n,
                r.emptyTimeout(),
                r.provisionFailed(),
                r.staleTimeout(),
                r.skippedLocked(),
                r.poisoned(),
                r.durationMs(),
                r.lockAcquired() ? "" : "  (lock held elsewhere)");
          }
        };
    ApplicationContextInitializer<ConfigurableApplicationContext> demo =
        ctx -> {
          ctx.getBeanFactory().registerSingleton("demoPrinter", printer);
          // Always a fresh embedded database: the demo writes made-up rooms and must never touch a
          // real one.
          new EmbeddedPostgresInitializer(true).initializeForced(ctx);
        };
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              ReaperCli.awaitQuietly(finished, 60);
            },
            "demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    ScheduledExecutorService messenger = Executors.newSingleThreadScheduledExecutor();
    try (ConfigurableApplicationContext ctx =
        ApplicationContexts.start("demo", args, DEMO_DEFAULTS, List.of(demo), false)) {
      ConferenceRoomReaperOptions options = ctx.getBean(ConferenceRoomReaperOptions.class);
      DataSource dataSource = ctx.getBean(DataSource.class);
      MessengerSimulator simulator =
          new MessengerSimulator(
              dataSource, ctx.getBean(Clock.class), options.emptyRoomGrace(), 42);
      System.out.println(
          "demo: simulated messenger + reaper ("
              + options.describe()
              + ")"
              + (duration == null ? "; Ctrl-C ends it" : "; runs for " + duration));
      var unused = messenger.scheduleAtFixedRate(simulator::step, 0, 200, TimeUnit.MILLISECONDS);
      if (duration == null) {
        stop.await();
      } else {
        stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);
      }
      messenger.shutdown();
      messenger.awaitTermination(5, TimeUnit.SECONDS);
      ctx.getBean(ReaperLoopLifecycle.class).stop();
      SloReport report =
          SloReport.measure(dataSource, options, simulator.rejoinedRooms(), SLO_TOLERANCE);
      System.out.printf(
          "%ndemo summary: %d cycles, %d rooms created; reaped empty-room %d, provision-timeout %d, stale-live %d%n",
          cycles.get(),
          simulator.roomsCreated(),
          totals[0].get(),
          totals[1].get(),
          totals[2].get());
      System.out.println(report.format(options));
      return report.violations() == 0 && report.rejoinedClosedAsEmpty() == 0 ? 0 : 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (java.sql.SQLException e) {
      System.err.println("demo: could not read the results: " + e.getMessage());
      return 1;
    } finally {
      messenger.shutdownNow();
      finished.countDown();
    }
  }
}
