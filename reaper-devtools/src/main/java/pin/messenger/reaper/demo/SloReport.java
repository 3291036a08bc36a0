package pin.messenger.reaper.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;

/**
 * How late each reaper close was against the spec's SLO: an empty room by {@code last_activity_at +
 * grace + interval}, a Provisioning room by {@code created_at + provision-timeout + interval}, a
 * stale room by {@code last_activity_at + stale-live-timeout + interval}. Lateness is measured from
 * the moment the room became due; a violation is lateness above the polling interval plus the
 * stated scheduling tolerance.
 */
public final class SloReport {

  static final String LATENESS =
      """
      SELECT end_reason, id,
             extract(epoch FROM ended_at - CASE end_reason
                 WHEN 'EmptyTimeout' THEN last_activity_at + ?::interval
                 WHEN 'Timeout' THEN last_activity_at + ?::interval
                 ELSE created_at + ?::interval END) * 1000 AS lateness_ms
        FROM messenger.conference_sessions
       WHERE end_reason IN ('EmptyTimeout', 'Timeout', 'Error')
       ORDER BY end_reason
      """;

  /** One phase's figures. */
  public record PhaseFigures(
      String endReason, int closed, long p50Ms, long p99Ms, long maxMs, int violations) {}

  private final Map<String, PhaseFigures> figures;
  private final int rejoinedClosedAsEmpty;
  private final Duration tolerance;

  private SloReport(
      Map<String, PhaseFigures> figures, int rejoinedClosedAsEmpty, Duration tolerance) {
    this.figures = figures;
    this.rejoinedClosedAsEmpty = rejoinedClosedAsEmpty;
    this.tolerance = tolerance;
  }

  public static SloReport measure(
      DataSource dataSource,
      ConferenceRoomReaperOptions options,
      Collection<UUID> rejoined,
      Duration tolerance)
      throws SQLException {
    Map<String, List<Long>> lateness = new LinkedHashMap<>();
    List<UUID> emptyClosed = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(LATENESS)) {
      ps.setString(1, options.emptyRoomGrace().toMillis() + " milliseconds");
      ps.setString(2, options.staleLiveTimeout().toMillis() + " milliseconds");
      ps.setString(3, options.provisionTimeout().toMillis() + " milliseconds");
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String reason = rs.getString(1);
          lateness.computeIfAbsent(reason, k -> new ArrayList<>()).add(Math.round(rs.getDouble(3)));
          if (reason.equals("EmptyTimeout")) {
            emptyClosed.add(rs.getObject(2, UUID.class));
          }
        }
      }
    }
    long limit = options.pollingInterval().plus(tolerance).toMillis();
    Map<String, PhaseFigures> figures = new LinkedHashMap<>();
    lateness.forEach(
        (reason, values) -> {
          Collections.sort(values);
          int violations = (int) values.stream().filter(v -> v > limit).count();
          figures.put(
              reason,
              new PhaseFigures(
                  reason,
                  values.size(),
                  percentile(values, 0.50),
                  percentile(values, 0.99),
                  values.get(values.size() - 1),
                  violations));
        });
    int rejoinedAsEmpty = (int) emptyClosed.stream().filter(rejoined::contains).count();
    return new SloReport(figures, rejoinedAsEmpty, tolerance);
  }

  public int violations() {
    return figures.values().stream().mapToInt(PhaseFigures::violations).sum();
  }

  public Map<String, PhaseFigures> figures() {
    return figures;
  }

  public int rejoinedClosedAsEmpty() {
    return rejoinedClosedAsEmpty;
  }

  /** Human-readable summary lines. */
  public String format(ConferenceRoomReaperOptions options) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "SLO lateness (close - due), limit = polling interval %d ms + tolerance %d ms:%n",
            options.pollingInterval().toMillis(), tolerance.toMillis()));
    for (String reason : List.of("EmptyTimeout", "Error", "Timeout")) {
      PhaseFigures f = figures.getOrDefault(reason, new PhaseFigures(reason, 0, 0, 0, 0, 0));
      b.append(
          String.format(
              "  %-13s closed %4d   p50 %5d ms   p99 %5d ms   max %5d ms   violations %d%n",
              reason, f.closed(), f.p50Ms(), f.p99Ms(), f.maxMs(), f.violations()));
    }
    b.append(
        String.format(
            "  rooms re-joined within the grace and closed as empty: %d%n", rejoinedClosedAsEmpty));
    b.append(String.format("SLO violations: %d", violations()));
    return b.toString();
  }

  private static long percentile(List<Long> sorted, double q) {
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }
}
