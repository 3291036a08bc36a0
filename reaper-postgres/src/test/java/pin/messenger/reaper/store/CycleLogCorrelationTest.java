package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.Cancellation.Checkpoint;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;

/**
 * Every line of a cycle carries its jobRunId — the failure and cancellation lines first of all,
 * which are the ones an operator needs to correlate.
 */
class CycleLogCorrelationTest extends DatabaseTest {
  final Instant asOf = Instant.parse("2026-12-02T10:00:00Z");
  final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @BeforeEach
  void capture() {
    lines.start();
    root.addAppender(lines);
  }

  @AfterEach
  void release() {
    root.detachAppender(lines);
  }

  private List<ILoggingEvent> cycleLines() {
    return lines.list.stream()
        .filter(e -> e.getLoggerName().startsWith("pin.messenger.reaper"))
        .toList();
  }

  @Test
  void every_line_of_a_cancelled_cycle_carries_its_job_run_id() {
    rooms.insertAll(List.of(Rooms.emptyActive(asOf.minusSeconds(500))));
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(db.dataSource()),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of());

    assertThatThrownBy(
            () -> reaper.runOnce(asOf, Cancellation.at(Checkpoint.BEFORE_COMMIT, Phase.EMPTY_ROOM)))
        .isInstanceOf(CancellationException.class);

    assertEveryLineCarriesOneJobRunId("cycle cancelled");
  }

  @Test
  void every_line_of_a_failed_cycle_carries_its_job_run_id() {
    // A pool whose database is gone: the cycle fails on its first storage call.
    HikariDataSource gone = new HikariDataSource();
    gone.setJdbcUrl(db.url());
    gone.setUsername(db.user());
    gone.setPassword(db.password());
    gone.setConnectionTimeout(250);
    gone.setInitializationFailTimeout(-1);
    gone.close();
    ConferenceRoomReaper reaper =
        new ConferenceRoomReaper(
            new PostgresReaperStore(gone),
            ConferenceRoomReaperOptions.defaults(),
            ReaperObserver.NONE,
            List.of());

    assertThatThrownBy(() -> reaper.runOnce(asOf, Cancellation.NONE))
        .isInstanceOf(RuntimeException.class);

    assertEveryLineCarriesOneJobRunId("cycle failed");
  }

  /** The cycle logged a line starting with {@code ending}, and every line of it has the same id. */
  private void assertEveryLineCarriesOneJobRunId(String ending) {
    List<ILoggingEvent> cycle = cycleLines();
    assertThat(cycle)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anyMatch(m -> m.startsWith(ending));
    String jobRunId = cycle.get(0).getMDCPropertyMap().get("jobRunId");
    assertThat(jobRunId).isNotBlank();
    assertThat(cycle)
        .allSatisfy(
            e ->
                assertThat(e.getMDCPropertyMap().get("jobRunId"))
                    .as(e.getFormattedMessage())
                    .isEqualTo(jobRunId));
  }
}
