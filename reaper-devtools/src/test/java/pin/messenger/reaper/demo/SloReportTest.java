package pin.messenger.reaper.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.testing.DatabaseTest;
import pin.messenger.reaper.testing.Rooms;

/**
 * The demo's SLO summary over closes written with known lateness (real PostgreSQL): per phase the
 * count, the nearest-rank p50 and p99, the maximum, the closes later than polling interval +
 * tolerance, and the re-joined rooms closed as empty.
 */
class SloReportTest extends DatabaseTest {
  static final ConferenceRoomReaperOptions OPTIONS =
      ConferenceRoomReaperOptions.defaults().toBuilder()
          .pollingInterval(Duration.ofSeconds(1))
          .emptyRoomGrace(Duration.ofSeconds(3))
          .provisionTimeout(Duration.ofSeconds(4))
          .staleLiveTimeout(Duration.ofSeconds(8))
          .build();
  static final Duration TOLERANCE = Duration.ofMillis(100);
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  /** A room the reaper closed {@code lateMs} after it fell due. */
  static UUID closed(String endReason, String status, Duration window, long lateMs) {
    Rooms.Room r =
        rooms.insert(endReason.equals("Error") ? Rooms.provisioning(T0) : Rooms.emptyActive(T0));
    rooms.exec(
        "UPDATE messenger.conference_sessions SET status = ?, end_reason = ?, ended_at = ? WHERE id = ?",
        status,
        endReason,
        Rooms.ts(T0.plus(window).plusMillis(lateMs)),
        r.id);
    return r.id;
  }

  @Test
  void percentiles_maximum_violations_and_rejoined_closes_per_phase() throws Exception {
    List<UUID> empty = new java.util.ArrayList<>();
    for (long late : new long[] {700, 100, 1000, 300, 200, 900, 400, 800, 600, 500}) {
      empty.add(closed("EmptyTimeout", "Ended", OPTIONS.emptyRoomGrace(), late));
    }
    closed("Timeout", "Ended", OPTIONS.staleLiveTimeout(), 1_500);
    closed("Error", "Failed", OPTIONS.provisionTimeout(), 250);
    rooms.insert(Rooms.ended(T0)); // ended by the messenger: no reaper close, not measured
    Set<UUID> rejoined = Set.of(empty.get(3), UUID.randomUUID());

    SloReport report = SloReport.measure(db.dataSource(), OPTIONS, rejoined, TOLERANCE);

    assertThat(report.figures().get("EmptyTimeout"))
        .isEqualTo(new SloReport.PhaseFigures("EmptyTimeout", 10, 500, 1000, 1000, 0));
    assertThat(report.figures().get("Timeout"))
        .isEqualTo(new SloReport.PhaseFigures("Timeout", 1, 1500, 1500, 1500, 1));
    assertThat(report.figures().get("Error"))
        .isEqualTo(new SloReport.PhaseFigures("Error", 1, 250, 250, 250, 0));
    assertThat(report.figures()).doesNotContainKey("Completed");
    assertThat(report.violations()).isEqualTo(1);
    assertThat(report.rejoinedClosedAsEmpty()).isEqualTo(1);
  }

  @Test
  void a_close_exactly_at_the_limit_is_no_violation_one_millisecond_later_is() throws Exception {
    closed("EmptyTimeout", "Ended", OPTIONS.emptyRoomGrace(), 1_100);
    closed("EmptyTimeout", "Ended", OPTIONS.emptyRoomGrace(), 1_101);

    SloReport report = SloReport.measure(db.dataSource(), OPTIONS, Set.of(), TOLERANCE);

    assertThat(report.figures().get("EmptyTimeout").violations()).isEqualTo(1);
  }

  @Test
  void the_summary_has_a_line_per_phase_even_without_closes_and_the_total() throws Exception {
    closed("EmptyTimeout", "Ended", OPTIONS.emptyRoomGrace(), 120);

    String text = SloReport.measure(db.dataSource(), OPTIONS, Set.of(), TOLERANCE).format(OPTIONS);

    assertThat(text.lines())
        .containsExactly(
            "SLO lateness (close - due), limit = polling interval 1000 ms + tolerance 100 ms:",
            "  EmptyTimeout  closed    1   p50   120 ms   p99   120 ms   max   120 ms   violations 0",
            "  Error         closed    0   p50     0 ms   p99     0 ms   max     0 ms   violations 0",
            "  Timeout       closed    0   p50     0 ms   p99     0 ms   max     0 ms   violations 0",
            "  rooms re-joined within the grace and closed as empty: 0",
            "SLO violations: 0");
  }
}
