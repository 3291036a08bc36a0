package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.DueTimes;
import pin.messenger.reaper.core.PauseState;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.Wakeup;
import pin.messenger.reaper.schema.DeliveryTables;

/**
 * Read-only answers for operators ({@code bin/reaper status} and {@code explain}): who holds the
 * run lock, poison rows, pending deliveries, and everything about one conference. Never changes a
 * row; takes a row lock only to find out, without waiting, whether someone else holds it, and
 * releases it at once.
 */
public final class Diagnostics {

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

  /**
   * Pending deliveries and poison rows, straight from the tables (also read by the gauges).
   * "Pending" is {@link DeliveryTables}' definition, the one the relay and the dispatcher claim by.
   */
  public static final String DELIVERY =
      """
      SELECT (SELECT count(*) FROM messenger.integration_outbox WHERE %1$s) AS outbox_pending,
             (SELECT min(occurred_at) FROM messenger.integration_outbox WHERE %1$s) AS outbox_oldest,
             (SELECT count(*) FROM messenger.integration_outbox WHERE quarantined_at IS NOT NULL) AS outbox_quarantined,
             (SELECT count(*) FROM messenger.recorder_stop_requests WHERE %2$s) AS recorder_pending,
             (SELECT min(created_at) FROM messenger.recorder_stop_requests WHERE %2$s) AS recorder_oldest,
             (SELECT count(*) FROM messenger.recorder_stop_requests WHERE gave_up_at IS NOT NULL) AS recorder_gave_up,
             (SELECT count(*) FROM messenger.realtime_outbox WHERE dispatched_at IS NULL) AS realtime_pending,
             (SELECT count(*) FROM messenger.conference_sessions
               WHERE status IN ('Provisioning', 'Active') AND reaper_last_error IS NOT NULL) AS poison
      """
          .formatted(
              DeliveryTables.INTEGRATION_OUTBOX.pending(),
              DeliveryTables.RECORDER_STOP_REQUESTS.pending());

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

  static final String TRY_ROW_LOCK =
      "SELECT 1 FROM messenger.conference_sessions WHERE id = ? FOR UPDATE";

  static final String BLOCKERS =
      """
      SELECT a.pid, a.application_name, host(a.client_addr) AS client_addr, a.xact_start, a.state, left(a.query, 200) AS query
        FROM pg_stat_activity a WHERE a.pid = ANY(pg_blocking_pids(?))
      """;

  private final DataSource dataSource;
  private final PostgresReaperStore store;

  public Diagnostics(DataSource dataSource, PostgresReaperStore store) {
    this.dataSource = dataSource;
    this.store = store;
  }

  /** Everything {@code status} shows, as ordered maps ready for a table or JSON. */
  public Map<String, Object> status(Instant asOf, ConferenceRoomReaperOptions options)
      throws SQLException {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("asOf", asOf.toString());
    Backlog backlog = store.backlog(asOf, options);
    Map<String, Object> phases = new LinkedHashMap<>();
    for (Phase phase : Phase.values()) {
      Backlog.PhaseBacklog p = backlog.phase(phase);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("due", p.due());
      m.put("oldestDueSince", p.oldestDueSince() == null ? null : p.oldestDueSince().toString());
      m.put(
          "oldestDueAgeSeconds",
          p.oldestDueSince() == null
              ? null
              : Math.max(0, asOf.getEpochSecond() - p.oldestDueSince().getEpochSecond()));
      phases.put(phase.label(), m);
    }
    out.put("phases", phases);
    out.put("activeBacklog", backlog.total());
    out.put("schedule", schedule(asOf, options));
    try (Connection c = dataSource.getConnection()) {
      List<Map<String, Object>> holders =
          Jdbc.rows(c, AdvisoryRunLock.HOLDER, AdvisoryRunLock.NAME);
      out.put("runLock", holders.isEmpty() ? null : holders.get(0));
      out.put("runners", Runners.list(c));
      out.put("pauses", Pauses.read(c).activeAt(asOf));
      out.put("poisonCount", Jdbc.rows(c, POISON_COUNT).get(0).get("count"));
      out.put("poison", Jdbc.rows(c, POISON, 20));
      out.put("delivery", Jdbc.rows(c, DELIVERY).get(0));
    }
    return out;
  }

  /**
   * The schedule as the database sees it now: each phase's next due instant ({@link
   * PostgresReaperStore#dueTimes}, the statement the workers read after every cycle) and what the
   * next-due schedule would wake for, counted from a cycle starting at {@code asOf} ({@link
   * pin.messenger.reaper.core.CycleSchedule}). A worker's own next start is its gauge {@code
   * messenger_conf_reaper_next_wakeup_seconds}.
   */
  private Map<String, Object> schedule(Instant asOf, ConferenceRoomReaperOptions options) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", options.schedule().label());
    out.put("pollingInterval", options.pollingInterval().toString());
    out.put("coalesce", options.nextDueCoalesce().toString());
    out.put("minGap", options.nextDueMinGap().toString());
    DueTimes due = store.dueTimes(java.time.Clock.fixed(asOf, java.time.ZoneOffset.UTC), options);
    Instant pausesAsOf =
        options.clock() == pin.messenger.reaper.core.ClockSource.DATABASE
            ? due.reading().databaseTime()
            : asOf;
    Map<String, Object> nextDue = new LinkedHashMap<>();
    for (Phase phase : Phase.values()) {
      Instant at = due.earliest().get(phase);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("at", at == null ? null : at.toString());
      m.put("paused", due.pauses().pausing(phase, pausesAsOf).isPresent());
      nextDue.put(phase.label(), m);
    }
    out.put("nextDue", nextDue);
    Wakeup w = new pin.messenger.reaper.core.CycleSchedule(options).next(asOf, asOf, due);
    Map<String, Object> wake = new LinkedHashMap<>();
    wake.put("reason", w.reason());
    wake.put("at", w.at().toString());
    wake.put("inSeconds", Math.max(0, Duration.between(asOf, w.at()).toMillis()) / 1000.0);
    out.put("nextWakeup", wake);
    return out;
  }

  /**
   * Everything {@code explain} shows about one conference; null when there is no such conference.
   */
  public @Nullable Map<String, Object> explain(
      UUID id, Instant asOf, ConferenceRoomReaperOptions options) throws Exception {
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
    Map<String, Object> out = new LinkedHashMap<>();
    // The history is shown as its own list (newest first), not as a JSON text among the columns.
    Object history = row.remove("reaper_error_history");
    out.put("session", row);
    out.put("errorHistory", Jdbc.jsonList(history));
    Map<String, Object> verdicts = phaseVerdicts(row, matches, asOf, options);
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
    out.put("phases", verdicts);
    out.put("pauses", pauses.activeAt(asOf));
    out.put("rowLock", rowLock(id));
    try (Connection c = dataSource.getConnection()) {
      out.put(
          "integrationOutbox",
          Jdbc.rows(c, OUTBOX_OF, String.valueOf(row.get("deal_id")), id.toString()));
      out.put("realtimeOutbox", Jdbc.rows(c, REALTIME_OF, id));
      out.put("recorderStopRequests", Jdbc.rows(c, STOPS_OF, id));
    }
    return out;
  }

  /**
   * For each phase: does its predicate match now ({@code matches}, from {@link #PHASE_MATCH_SQL}),
   * and if not, why, or when it will: at the row's reference time plus the phase's window.
   */
  static Map<String, Object> phaseVerdicts(
      Map<String, Object> row,
      Map<String, Object> matches,
      Instant asOf,
      ConferenceRoomReaperOptions o) {
    String status = (String) row.get("status");
    Instant backoff = (Instant) row.get("reaper_next_attempt_at");
    int count = ((Number) Objects.requireNonNull(row.get("active_participant_count"))).intValue();
    Map<String, Object> out = new LinkedHashMap<>();
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

  /** SQLSTATE lock_not_available: the lock timeout ran out while another transaction held it. */
  static final String LOCK_NOT_AVAILABLE = "55P03";

  /**
   * Whether another transaction holds the row now, and who: one session waits briefly for the row
   * lock while a second asks the server whom it waits for. Both roll back; the waiting gives up
   * after 300 ms. Only a lock timeout means "locked": any other error (permission denied, a lost
   * connection) is reported as what it is, never as a lock. The waiting runs on a thread of its own
   * that is finished (its statement cancelled if need be) before the connections close.
   */
  Map<String, Object> rowLock(UUID id) throws Exception {
    ExecutorService waiting =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "explain-row-lock");
              t.setDaemon(true);
              return t;
            });
    try (Connection waiter = dataSource.getConnection();
        Connection observer = dataSource.getConnection()) {
      waiter.setAutoCommit(false);
      int pid;
      try (Statement st = waiter.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '300ms'");
        try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
          rs.next();
          pid = rs.getInt(1);
        }
      }
      PreparedStatement tryLock = waiter.prepareStatement(TRY_ROW_LOCK);
      tryLock.setObject(1, id);
      Future<Boolean> free =
          waiting.submit(
              () -> {
                try {
                  tryLock.executeQuery().close();
                  return true;
                } catch (SQLException e) {
                  if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    return false;
                  }
                  throw e;
                }
              });
      List<Map<String, Object>> blockers = List.of();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250);
      while (!free.isDone() && System.nanoTime() < deadline) {
        blockers = Jdbc.rows(observer, BLOCKERS, pid);
        if (!blockers.isEmpty()) {
          break;
        }
        Thread.sleep(20);
      }
      Map<String, Object> out = new LinkedHashMap<>();
      try {
        boolean wasFree = awaitOrCancel(free, tryLock);
        out.put("locked", !wasFree);
        out.put("heldBy", wasFree ? List.of() : blockers);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        out.put("locked", null);
        out.put("error", "could not check the row lock: " + cause.getMessage());
      } finally {
        tryLock.close();
        waiter.rollback();
      }
      return out;
    } finally {
      waiting.shutdownNow();
    }
  }

  /** The lock attempt's answer; if it does not come, its statement is cancelled and awaited. */
  private static boolean awaitOrCancel(Future<Boolean> free, PreparedStatement tryLock)
      throws Exception {
    try {
      return free.get(5, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      tryLock.cancel();
      return free.get(5, TimeUnit.SECONDS);
    }
  }
}
