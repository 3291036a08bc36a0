package pin.messenger.reaper.store;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.annotation.JsonNaming;
import tools.jackson.databind.json.JsonMapper;

/**
 * Who is running: {@code messenger.conference_reaper_runners}, one row per worker process. Each
 * worker refreshes its row in one autocommit statement of its own, never inside a cycle's
 * transaction ({@link #REFRESH}), and deletes in the same statement the rows of runners gone for
 * longer than the retention. Whether a runner is live is judged on the database's clock against the
 * row's own {@code silent_after_ms} ({@link #LIVE}), the one definition {@code status} and the
 * live-runners gauge share.
 */
public final class Runners {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Client-side bound of each statement here (pgjdbc cancels it after this): seconds. */
  public static final int STATEMENT_TIMEOUT_SECONDS = 2;

  /** A runner is live: not stopped, and refreshed within its own silent_after. */
  static final String LIVE =
      "(stopped_at IS NULL AND last_seen_at >= clock_timestamp() - silent_after_ms * interval '1 millisecond')";

  /**
   * Upserts this runner's row with the database's clock as {@code last_seen_at}, and deletes the
   * rows of other runners not seen for longer than the retention. Parameters: instance id,
   * retention ms, then the row's columns in order.
   */
  static final String REFRESH =
      """
      WITH gone AS (
        DELETE FROM messenger.conference_reaper_runners
         WHERE instance_id <> ? AND last_seen_at < clock_timestamp() - ? * interval '1 millisecond'
      )
      INSERT INTO messenger.conference_reaper_runners AS r
             (instance_id, host, pid, version, started_at, last_seen_at, silent_after_ms, last_cycle_id,
              last_cycle_started_at, last_cycle_completed_at, last_cycle_held_lock, paused_phases, stopped_at)
      VALUES (?, ?, ?, ?, ?, clock_timestamp(), ?, ?, ?, ?, ?, ?::jsonb, ?)
      ON CONFLICT (instance_id) DO UPDATE
         SET host = excluded.host, pid = excluded.pid, version = excluded.version,
             started_at = excluded.started_at, last_seen_at = excluded.last_seen_at,
             silent_after_ms = excluded.silent_after_ms, last_cycle_id = excluded.last_cycle_id,
             last_cycle_started_at = excluded.last_cycle_started_at,
             last_cycle_completed_at = excluded.last_cycle_completed_at,
             last_cycle_held_lock = excluded.last_cycle_held_lock,
             paused_phases = excluded.paused_phases, stopped_at = excluded.stopped_at
      """;

  /** Every runner row, live ones first, with its state and how long since it was last seen. */
  static final String LIST =
      """
      SELECT instance_id, host, pid, version, started_at, last_seen_at,
             CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
                  WHEN %1$s THEN 'live' ELSE 'silent' END AS state,
             round(extract(epoch FROM clock_timestamp() - last_seen_at)::numeric, 1) AS seen_seconds_ago,
             silent_after_ms, last_cycle_id, last_cycle_started_at, last_cycle_completed_at,
             last_cycle_held_lock, paused_phases::text AS paused_phases, stopped_at
        FROM messenger.conference_reaper_runners
       ORDER BY %1$s DESC, stopped_at IS NOT NULL, last_seen_at DESC
       LIMIT 100
      """
          .formatted(LIVE);

  /** Live runners and silent ones (neither live nor stopped), for the gauges. */
  public static final String COUNT =
      """
      SELECT count(*) FILTER (WHERE %1$s) AS live,
             count(*) FILTER (WHERE stopped_at IS NULL AND NOT %1$s) AS silent
        FROM messenger.conference_reaper_runners
      """
          .formatted(LIVE);

  /**
   * One runner's row as it writes it.
   *
   * @param instanceId unique per process (a random UUID at start)
   * @param host the pod or host name
   * @param pid the process id, when known
   * @param version the jar's version
   * @param startedAt when the process started
   * @param silentAfter how long it may go without a refresh before {@code status} calls it silent
   * @param lastCycleId the jobRunId of its last cycle
   * @param lastCycleHeldLock whether its last completed cycle held the run lock
   * @param pausedPhases the phase labels its last cycle found paused
   * @param stoppedAt set when it stopped cleanly
   */
  public record Row(
      String instanceId,
      String host,
      @Nullable Long pid,
      String version,
      Instant startedAt,
      Duration silentAfter,
      @Nullable String lastCycleId,
      @Nullable Instant lastCycleStartedAt,
      @Nullable Instant lastCycleCompletedAt,
      @Nullable Boolean lastCycleHeldLock,
      List<String> pausedPhases,
      @Nullable Instant stoppedAt) {
    public Row {
      pausedPhases = List.copyOf(pausedPhases);
    }
  }

  private final DataSource dataSource;

  public Runners(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Writes {@code row} (one autocommit statement, cancelled after {@link
   * #STATEMENT_TIMEOUT_SECONDS}) and deletes other runners not seen for longer than {@code
   * retention}.
   */
  public void refresh(Row row, Duration retention) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(REFRESH)) {
      ps.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
      int i = 1;
      ps.setString(i++, row.instanceId());
      ps.setLong(i++, retention.toMillis());
      ps.setString(i++, row.instanceId());
      ps.setString(i++, row.host());
      ps.setObject(i++, row.pid());
      ps.setString(i++, row.version());
      ps.setObject(i++, Jdbc.ts(row.startedAt()));
      ps.setLong(i++, Math.max(1, row.silentAfter().toMillis()));
      ps.setString(i++, row.lastCycleId());
      ps.setObject(i++, Jdbc.ts(row.lastCycleStartedAt()));
      ps.setObject(i++, Jdbc.ts(row.lastCycleCompletedAt()));
      ps.setObject(i++, row.lastCycleHeldLock());
      ps.setString(i++, JSON.writeValueAsString(row.pausedPhases()));
      ps.setObject(i, Jdbc.ts(row.stoppedAt()));
      ps.executeUpdate();
    }
  }

  /** How many runners are live, and how many silent (neither live nor stopped). */
  public record Count(long live, long silent) {}

  /** Live and silent runners now. */
  public Count count() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(COUNT)) {
      ps.setQueryTimeout(STATEMENT_TIMEOUT_SECONDS);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Count(rs.getLong("live"), rs.getLong("silent"));
      }
    }
  }

  /**
   * A runner's row as {@code status} shows it: {@code state} is {@code live}, {@code silent} or
   * {@code stopped}; {@code seenSecondsAgo} on the database's clock.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Runner(
      String instanceId,
      String host,
      @Nullable Long pid,
      String version,
      Instant startedAt,
      Instant lastSeenAt,
      String state,
      BigDecimal seenSecondsAgo,
      long silentAfterMs,
      @Nullable String lastCycleId,
      @Nullable Instant lastCycleStartedAt,
      @Nullable Instant lastCycleCompletedAt,
      @Nullable Boolean lastCycleHeldLock,
      List<Object> pausedPhases,
      @Nullable Instant stoppedAt) {
    static Runner read(ResultSet rs) throws SQLException {
      return new Runner(
          rs.getString("instance_id"),
          rs.getString("host"),
          rs.getObject("pid", Long.class),
          rs.getString("version"),
          Jdbc.requiredInstant(rs, "started_at"),
          Jdbc.requiredInstant(rs, "last_seen_at"),
          rs.getString("state"),
          rs.getBigDecimal("seen_seconds_ago"),
          rs.getLong("silent_after_ms"),
          rs.getString("last_cycle_id"),
          Jdbc.instant(rs, "last_cycle_started_at"),
          Jdbc.instant(rs, "last_cycle_completed_at"),
          rs.getObject("last_cycle_held_lock", Boolean.class),
          Jdbc.jsonList(rs.getObject("paused_phases")),
          Jdbc.instant(rs, "stopped_at"));
    }
  }

  /** Every runner's row for {@code status}, live first. */
  static List<Runner> list(Connection c) throws SQLException {
    return Jdbc.list(c, LIST, Runner::read);
  }
}
