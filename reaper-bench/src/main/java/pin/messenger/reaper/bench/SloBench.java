package pin.messenger.reaper.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperLoop;
import pin.messenger.reaper.demo.MessengerSimulator;
import pin.messenger.reaper.demo.SloReport;

/**
 * Section {@code slo}: SLO lateness under the demo's simulated messenger, on the bench's main
 * database. No maintained harness fits: the figure is how late rooms close after they fall due, not
 * how long a call takes.
 */
final class SloBench {
  private final boolean quick;
  private final DataSource dataSource;
  private final BenchData data;
  private final BenchReport report;

  SloBench(boolean quick, DataSource dataSource, BenchReport report) {
    // Plain field assignments: `duplicates` pairs them with other constructors of the same shape.
    this.quick = quick;
    this.dataSource = dataSource;
    this.data = new BenchData(dataSource);
    this.report = report;
  }

  /** 4. SLO lateness in a simulated run (the demo's messenger and timings). */
  void run() throws Exception {
    Duration runFor = quick ? Duration.ofSeconds(20) : Duration.ofSeconds(60);
    ConferenceRoomReaperOptions o =
        ConferenceRoomReaperOptions.builder()
            .pollingInterval(Duration.ofSeconds(1))
            .emptyRoomGrace(Duration.ofSeconds(3))
            .provisionTimeout(Duration.ofSeconds(4))
            .staleLiveTimeout(Duration.ofSeconds(8))
            .lockTtl(Duration.ofSeconds(20))
            .maxRunDuration(Duration.ofSeconds(10))
            .statementTimeout(Duration.ofSeconds(4))
            .build();
    data.exec(
        "TRUNCATE messenger.conference_sessions, messenger.integration_outbox, messenger.realtime_outbox,"
            + " messenger.recorder_stop_requests, messenger.conference_participants, messenger.call_recordings");
    MessengerSimulator simulator =
        new MessengerSimulator(dataSource, Clock.systemUTC(), o.emptyRoomGrace(), 42);
    ScheduledExecutorService messenger = Executors.newSingleThreadScheduledExecutor();
    try (ReaperLoop loop = new ReaperLoop(BenchReport.reaper(dataSource, o), null)) {
      var unused = messenger.scheduleAtFixedRate(simulator::step, 0, 200, TimeUnit.MILLISECONDS);
      loop.start();
      Thread.sleep(runFor.toMillis());
    } finally {
      messenger.shutdownNow();
    }
    SloReport slo = SloReport.measure(dataSource, o, simulator.rejoinedRooms(), Duration.ZERO);
    report.line(
        String.format(
            "%n## SLO lateness (simulated messenger, %d s, interval 1 s, grace 3 s; close − due)",
            runFor.toSeconds()));
    report.line("| end reason | closed | p50 ms | p99 ms | max ms | over the interval |");
    report.line("|---|---:|---:|---:|---:|---:|");
    slo.figures()
        .values()
        .forEach(
            f ->
                report.line(
                    String.format(
                        "| %s | %d | %d | %d | %d | %d |",
                        f.endReason(),
                        f.closed(),
                        f.p50Ms(),
                        f.p99Ms(),
                        f.maxMs(),
                        f.violations())));
  }
}
