package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.annotation.JsonNaming;

/**
 * {@code bin/reaper explain <conferenceId>}: why one conference is (or is not) closed, and what was
 * queued for it. Never changes a row.
 */
public final class Explanation {

  /**
   * Whether each phase's {@link PhaseRule#due} predicate matches one row now: the same SQL the
   * claim and the backlog use, so {@code explain} cannot disagree with them. %s is, per phase,
   * {@code (due) AS <phase>_due}. Parameters: each phase's cutoff, then the conference id.
   */
  static final String PHASE_MATCH =
      """
      SELECT %s
        FROM messenger.conference_sessions s
       WHERE s.id = ?
      """;

  static final String PHASE_MATCH_SQL;

  static {
    List<String> columns = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      columns.add("(" + PhaseRule.of(phase).due() + ") AS " + dueColumn(phase));
    }
    PHASE_MATCH_SQL = PHASE_MATCH.formatted(String.join(", ", columns));
  }

  static final String SESSION = "SELECT * FROM messenger.conference_sessions WHERE id = ?";

  static final String OUTBOX_OF =
      """
      SELECT id, seq, occurred_at, published_at, attempts, last_error, quarantined_at, correlation_id
        FROM messenger.integration_outbox
       WHERE message_key = ? AND payload->>'conferenceId' = ?
       ORDER BY seq
      """;

  static final String REALTIME_OF =
      "SELECT id, kind, created_at, dispatched_at FROM messenger.realtime_outbox WHERE conference_id = ? ORDER BY created_at";

  static final String STOPS_OF =
      """
      SELECT id, recording_id, created_at, delivered_at, attempts, last_error, gave_up_at
        FROM messenger.recorder_stop_requests WHERE conference_id = ? ORDER BY created_at
      """;

  /**
   * Everything {@code explain} shows about one conference.
   *
   * @param session the row as the table holds it, every column (the table is the messenger's, and
   *     may carry columns the reaper does not know), without {@code reaper_error_history}
   * @param errorHistory {@code reaper_error_history} as stored, newest first
   * @param phases per phase label, its verdict ({@link #phaseVerdicts})
   * @param pauses the pauses in force
   */
  public record Explained(
      Map<String, Object> session,
      List<Object> errorHistory,
      Map<String, String> phases,
      List<PauseState.Pause> pauses,
      RowLockProbe.RowLock rowLock,
      List<OutboxEntry> integrationOutbox,
      List<RealtimeEntry> realtimeOutbox,
      List<StopRequestEntry> recorderStopRequests) {}

  /** One conference-ended event in {@code messenger.integration_outbox}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record OutboxEntry(
      UUID id,
      long seq,
      Instant occurredAt,
      @Nullable Instant publishedAt,
      int attempts,
      @Nullable String lastError,
      @Nullable Instant quarantinedAt,
      @Nullable String correlationId) {
    static OutboxEntry read(ResultSet rs) throws SQLException {
      return new OutboxEntry(
          Jdbc.uuid(rs, "id"),
          rs.getLong("seq"),
          Jdbc.requiredInstant(rs, "occurred_at"),
          Jdbc.instant(rs, "published_at"),
          rs.getInt("attempts"),
          rs.getString("last_error"),
          Jdbc.instant(rs, "quarantined_at"),
          rs.getString("correlation_id"));
    }
  }

  /** One row of {@code messenger.realtime_outbox}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record RealtimeEntry(
      UUID id, String kind, Instant createdAt, @Nullable Instant dispatchedAt) {
    static RealtimeEntry read(ResultSet rs) throws SQLException {
      return new RealtimeEntry(
          Jdbc.uuid(rs, "id"),
          rs.getString("kind"),
          Jdbc.requiredInstant(rs, "created_at"),
          Jdbc.instant(rs, "dispatched_at"));
    }
  }

  /** One row of {@code messenger.recorder_stop_requests}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record StopRequestEntry(
      UUID id,
      UUID recordingId,
      Instant createdAt,
      @Nullable Instant deliveredAt,
      int attempts,
      @Nullable String lastError,
      @Nullable Instant gaveUpAt) {
    static StopRequestEntry read(ResultSet rs) throws SQLException {
      return new StopRequestEntry(
          Jdbc.uuid(rs, "id"),
          Jdbc.uuid(rs, "recording_id"),
          Jdbc.requiredInstant(rs, "created_at"),
          Jdbc.instant(rs, "delivered_at"),
          rs.getInt("attempts"),
          rs.getString("last_error"),
          Jdbc.instant(rs, "gave_up_at"));
    }
  }

  private final DataSource dataSource;
  private final RowLockProbe rowLock;

  public Explanation(DataSource dataSource) {
    this.dataSource = dataSource;
    this.rowLock = new RowLockProbe(dataSource);
  }

  /** Everything {@code explain} shows about one conference; null when there is no such one. */
  public @Nullable Explained explain(UUID id, Instant asOf, ConferenceRoomReaperOptions options)
      throws Exception {
    Map<String, Object> row;
    Map<String, Object> matches;
    PauseState pauses;
    try (Connection c = dataSource.getConnection()) {
      List<Map<String, Object>> found = Jdbc.rows(c, SESSION, id);
      if (found.isEmpty()) {
        return null;
      }
      row = found.get(0);
      List<Object> params = new ArrayList<>();
      for (Phase phase : Phase.values()) {
        params.add(Jdbc.ts(phase.cutoff(asOf, options)));
      }
      params.add(id);
      matches = Jdbc.rows(c, PHASE_MATCH_SQL, params.toArray()).get(0);
      pauses = Pauses.read(c);
    }
    // The history is shown as its own list (newest first), not as a JSON text among the columns.
    Object history = row.remove("reaper_error_history");
    Map<String, String> verdicts = phaseVerdicts(row, matches, asOf, options);
    // A phase an operator paused closes nothing until it is resumed (or its pause ends).
    for (Phase phase : Phase.values()) {
      pauses
          .pausing(phase, asOf)
          .ifPresent(
              p ->
                  verdicts.computeIfPresent(
                      phase.label(),
                      (k, v) ->
                          v
                              + "; PAUSED by "
                              + p.actor()
                              + (p.until() == null ? "" : " until " + p.until())
                              + ": "
                              + p.reason()));
    }
    RowLockProbe.RowLock lock = rowLock.probe(id);
    try (Connection c = dataSource.getConnection()) {
      return new Explained(
          row,
          Jdbc.jsonList(history),
          verdicts,
          pauses.activeAt(asOf),
          lock,
          Jdbc.list(
              c, OUTBOX_OF, OutboxEntry::read, String.valueOf(row.get("deal_id")), id.toString()),
          Jdbc.list(c, REALTIME_OF, RealtimeEntry::read, id),
          Jdbc.list(c, STOPS_OF, StopRequestEntry::read, id));
    }
  }

  /**
   * For each phase: does its predicate match now ({@code matches}, from {@link #PHASE_MATCH_SQL}),
   * and if not, why, or when it will: at the row's reference time plus the phase's window.
   */
  static Map<String, String> phaseVerdicts(
      Map<String, Object> row,
      Map<String, Object> matches,
      Instant asOf,
      ConferenceRoomReaperOptions o) {
    String status = (String) row.get("status");
    Instant backoff = (Instant) row.get("reaper_next_attempt_at");
    int count = ((Number) Objects.requireNonNull(row.get("active_participant_count"))).intValue();
    Map<String, String> out = new LinkedHashMap<>();
    for (Phase phase : Phase.values()) {
      String verdict;
      if (!phase.from().name().equals(status)) {
        verdict = "never: status is " + status;
      } else if (phase.requiresEmptyRoom() && count > 0) {
        verdict = "not while active_participant_count = " + count;
      } else {
        Instant reference =
            (Instant) Objects.requireNonNull(row.get(phase.referenceTime().column()));
        Instant dueAt = reference.plus(phase.window(o));
        verdict = verdict(Boolean.TRUE.equals(matches.get(dueColumn(phase))), dueAt, asOf, backoff);
      }
      out.put(phase.label(), verdict);
    }
    return out;
  }

  private static String dueColumn(Phase phase) {
    return phase.name().toLowerCase(Locale.ROOT) + "_due";
  }

  private static String verdict(
      boolean due, Instant dueAt, Instant asOf, @Nullable Instant backoff) {
    String base =
        due
            ? "DUE since "
                + dueAt
                + " ("
                + (asOf.getEpochSecond() - dueAt.getEpochSecond())
                + " s ago)"
            : "due at "
                + dueAt
                + " (in "
                + (dueAt.getEpochSecond() - asOf.getEpochSecond())
                + " s)";
    if (backoff != null && backoff.isAfter(asOf)) {
      base += "; poison backoff until " + backoff;
    }
    return base;
  }
}
