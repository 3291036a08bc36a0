package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.ClockSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.CycleSchedule;
import pin.messenger.reaper.core.DueTimes;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.Wakeup;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.annotation.JsonNaming;

/**
 * {@code bin/reaper status}: how much is due per phase, the schedule, who holds the run lock, which
 * runners are live, what is paused, the poison rows and what waits for delivery. Never changes a
 * row.
 */
public final class StatusReport {

  static final String POISON =
      """
      SELECT id, status, reaper_attempts, reaper_last_error, reaper_last_error_at, reaper_next_attempt_at
        FROM messenger.conference_sessions
       WHERE status IN ('Provisioning', 'Active') AND reaper_last_error IS NOT NULL
       ORDER BY reaper_last_error_at DESC
       LIMIT ?
      """;

  static final String POISON_COUNT =
      """
      SELECT count(*) FROM messenger.conference_sessions
       WHERE status IN ('Provisioning', 'Active') AND reaper_last_error IS NOT NULL
      """;

  /** The poison rows listed (the newest errors first); {@code poisonCount} counts them all. */
  static final int POISON_LISTED = 20;

  /**
   * Everything {@code status} shows.
   *
   * @param phases per phase label, its backlog
   * @param runLock the session holding the run lock, or null when it is free
   * @param outboxMode who publishes the integration events ({@code reaper.outbox.mode}): {@code
   *     relay}, whose backlog is {@code delivery}'s outbox figures, or {@code debezium}, where the
   *     platform's connector reads them from the WAL and there is no backlog in a table to show
   */
  public record Status(
      String asOf,
      Map<String, PhaseDue> phases,
      long activeBacklog,
      Schedule schedule,
      @Nullable RunLockHolder runLock,
      List<Runners.Runner> runners,
      List<PauseState.Pause> pauses,
      long poisonCount,
      List<PoisonRow> poison,
      Diagnostics.DeliveryBacklog delivery,
      String outboxMode) {}

  /** One phase's backlog: rows due now, and since when the oldest of them is due. */
  public record PhaseDue(
      long due, @Nullable String oldestDueSince, @Nullable Long oldestDueAgeSeconds) {}

  /**
   * The schedule as the database sees it now.
   *
   * @param nextDue per phase label, its next due instant
   */
  public record Schedule(
      String mode,
      String pollingInterval,
      String coalesce,
      String minGap,
      Map<String, NextDue> nextDue,
      NextWakeup nextWakeup) {}

  /** A phase's next due instant (null: nothing due), and whether a pause holds it back. */
  public record NextDue(@Nullable String at, boolean paused) {}

  /** What the next-due schedule would wake for, counted from a cycle starting now. */
  public record NextWakeup(String reason, String at, double inSeconds) {}

  /** The server session holding the run lock ({@link AdvisoryRunLock#HOLDER}). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record RunLockHolder(
      Integer pid,
      @Nullable String applicationName,
      @Nullable String clientAddr,
      @Nullable Instant xactStart,
      @Nullable String state,
      @Nullable Instant stateChange) {
    static RunLockHolder read(ResultSet rs) throws SQLException {
      return new RunLockHolder(
          rs.getObject("pid", Integer.class),
          rs.getString("application_name"),
          rs.getString("client_addr"),
          Jdbc.instant(rs, "xact_start"),
          rs.getString("state"),
          Jdbc.instant(rs, "state_change"));
    }
  }

  /** A row the reaper could not close, with its last error. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record PoisonRow(
      UUID id,
      String status,
      int reaperAttempts,
      @Nullable String reaperLastError,
      @Nullable Instant reaperLastErrorAt,
      @Nullable Instant reaperNextAttemptAt) {
    static PoisonRow read(ResultSet rs) throws SQLException {
      return new PoisonRow(
          Jdbc.uuid(rs, "id"),
          rs.getString("status"),
          rs.getInt("reaper_attempts"),
          rs.getString("reaper_last_error"),
          Jdbc.instant(rs, "reaper_last_error_at"),
          Jdbc.instant(rs, "reaper_next_attempt_at"));
    }
  }

  private final DataSource dataSource;
  private final PostgresReaperStore store;

  public StatusReport(DataSource dataSource, PostgresReaperStore store) {
    this.dataSource = dataSource;
    this.store = store;
  }

  /** Everything {@code status} shows at {@code asOf}. */
  public Status read(Instant asOf, ConferenceRoomReaperOptions options) throws SQLException {
    Backlog backlog = store.backlog(asOf, options);
    Map<String, PhaseDue> phases = new LinkedHashMap<>();
    for (Phase phase : Phase.values()) {
      Backlog.PhaseBacklog p = backlog.phase(phase);
      Instant since = p.oldestDueSince();
      phases.put(
          phase.label(),
          new PhaseDue(
              p.due(),
              since == null ? null : since.toString(),
              since == null ? null : Math.max(0, asOf.getEpochSecond() - since.getEpochSecond())));
    }
    Schedule schedule = schedule(asOf, options);
    try (Connection c = dataSource.getConnection()) {
      List<RunLockHolder> holders =
          Jdbc.list(c, AdvisoryRunLock.HOLDER, RunLockHolder::read, AdvisoryRunLock.NAME);
      return new Status(
          asOf.toString(),
          phases,
          backlog.total(),
          schedule,
          holders.isEmpty() ? null : holders.get(0),
          Runners.list(c),
          Pauses.read(c).activeAt(asOf),
          ((Number) Objects.requireNonNull(Jdbc.rows(c, POISON_COUNT).get(0).get("count")))
              .longValue(),
          Jdbc.list(c, POISON, PoisonRow::read, POISON_LISTED),
          Diagnostics.read(c, Duration.ZERO),
          store.outbox().mode().label());
    }
  }

  /**
   * The schedule as the database sees it now: each phase's next due instant ({@link
   * PostgresReaperStore#dueTimes}, the statement the workers read after every cycle) and what the
   * next-due schedule would wake for, counted from a cycle starting at {@code asOf} ({@link
   * CycleSchedule}). A worker's own next start is its gauge {@code
   * messenger_conf_reaper_next_wakeup_seconds}.
   */
  private Schedule schedule(Instant asOf, ConferenceRoomReaperOptions options) {
    DueTimes due = store.dueTimes(Clock.fixed(asOf, ZoneOffset.UTC), options);
    Instant pausesAsOf =
        options.clock() == ClockSource.DATABASE ? due.reading().databaseTime() : asOf;
    Map<String, NextDue> nextDue = new LinkedHashMap<>();
    for (Phase phase : Phase.values()) {
      Instant at = due.earliest().get(phase);
      nextDue.put(
          phase.label(),
          new NextDue(
              at == null ? null : at.toString(),
              due.pauses().pausing(phase, pausesAsOf).isPresent()));
    }
    Wakeup w = new CycleSchedule(options).next(asOf, asOf, due);
    return new Schedule(
        options.schedule().label(),
        options.pollingInterval().toString(),
        options.nextDue().coalesce().toString(),
        options.nextDue().minGap().toString(),
        nextDue,
        new NextWakeup(
            w.reason(),
            w.at().toString(),
            Math.max(0, Duration.between(asOf, w.at()).toMillis()) / 1000.0));
  }
}
