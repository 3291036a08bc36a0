package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pin.messenger.reaper.core.CycleOrigin;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;
import pin.messenger.reaper.core.Transition;

/**
 * A poison row never sinks the batch: the set-based write runs under a savepoint (sent with the
 * write, no round trip of its own) and, on a data error, again by halves until the bad rows stand
 * alone (O(log n) extra statements per poison row, the healthy rows keep their set-based write);
 * the error is then kept on each poison row with an exponential backoff.
 */
final class PoisonIsolation {
  private static final Logger log = LoggerFactory.getLogger(PoisonIsolation.class);

  /**
   * How many of a poison row's errors it keeps ({@code reaper_error_history}, newest first): the
   * attempts {@code explain} shows. Bounded so a row that fails for weeks stays small: five entries
   * of at most {@link #MAX_ERROR_LENGTH} characters each.
   */
  public static final int ERROR_HISTORY = 5;

  /**
   * Keeps a poison row's error on it (the last one, and the newest {@link #ERROR_HISTORY} in its
   * history: {@code {"attempt", "at", "error"}} prepended, the rest cut by a JSON path slice) and
   * backs it off exponentially from the polling interval to a cap. The backoff moves the row's due
   * time, so its deadline is cleared: the next cycle re-arms it ({@link Deadlines}). Parameters:
   * asOf, asOf as ISO text, asOf, cap ms, base ms, ids, errors.
   */
  static final String RECORD_FAILURES =
      """
      UPDATE messenger.conference_sessions s
         SET reaper_attempts = s.reaper_attempts + 1,
             reaper_last_error = f.error,
             reaper_last_error_at = ?,
             reaper_error_history = jsonb_path_query_array(
                 jsonb_build_array(jsonb_build_object(
                     'attempt', s.reaper_attempts + 1, 'at', ?::text, 'error', f.error))
                   || (CASE WHEN jsonb_typeof(s.reaper_error_history) = 'array'
                            THEN s.reaper_error_history ELSE '[]'::jsonb END),
                 '$[0 to %d]'),
             reaper_next_attempt_at = ?::timestamptz
                 + least(?::bigint, ?::bigint * (2 ^ least(s.reaper_attempts, 20))::bigint) * interval '1 millisecond',
             reaper_window_start = '-infinity'
        FROM unnest(?::uuid[], ?::text[]) AS f(id, error)
       WHERE s.id = f.id
      """
          .formatted(ERROR_HISTORY - 1);

  static final int MAX_ERROR_LENGTH = 1000;

  private final Connection connection;
  private final TransitionWriter writer;

  PoisonIsolation(Connection connection, TransitionWriter writer) {
    this.connection = connection;
    this.writer = writer;
  }

  /**
   * What {@link #apply} did, and the run lock's check on the first write's round trip (null when
   * not asked or when the batch needed more than one write).
   */
  record Applied(ReaperStore.ApplyResult result, @Nullable Boolean runLockHeld) {}

  /**
   * Writes every transition it can; isolates and reports the rows the database refuses. With a
   * {@code lockPid}, the first write also checks the run lock on its round trip.
   */
  Applied apply(
      List<Transition> transitions, CycleOrigin origin, Instant asOf, @Nullable Integer lockPid) {
    List<Transition> applied = new ArrayList<>(transitions.size());
    Map<UUID, String> failed = new LinkedHashMap<>();
    Boolean held;
    try {
      held = applyIsolating(transitions, origin, asOf, applied, failed, lockPid);
    } catch (SQLException e) {
      throw new StoreException("writing transitions failed: " + Jdbc.describe(e), e);
    }
    return new Applied(new ReaperStore.ApplyResult(applied, failed), held);
  }

  /**
   * Writes {@code part} in one statement under a savepoint (sent on the write's round trip); on a
   * data error rolls back to it and splits the part in halves until the bad rows are alone. A
   * transition its status guard did not let through is in neither list. Returns the run lock's
   * check when this one write did it.
   */
  private @Nullable Boolean applyIsolating(
      List<Transition> part,
      CycleOrigin origin,
      Instant asOf,
      List<Transition> applied,
      Map<UUID, String> failed,
      @Nullable Integer lockPid)
      throws SQLException {
    TransitionWriter.Written written;
    try {
      written = writer.write(part, origin, asOf, lockPid);
    } catch (SQLException e) {
      if (!Jdbc.isDataError(e)) {
        throw e;
      }
      writer.undo();
      if (part.size() == 1) {
        failed.put(part.get(0).conferenceId(), Jdbc.describe(e));
        return null;
      }
      int mid = part.size() / 2;
      applyIsolating(part.subList(0, mid), origin, asOf, applied, failed, null);
      applyIsolating(part.subList(mid, part.size()), origin, asOf, applied, failed, null);
      return null;
    }
    for (Transition t : part) {
      if (written.closed().contains(t.conferenceId())) {
        applied.add(t);
      }
    }
    return written.runLockHeld();
  }

  /** Keeps the error of each poison row on the row (attempts, last error, when to try again). */
  void recordFailures(
      Map<UUID, String> errors, Instant asOf, Duration retryBase, Duration retryCap) {
    List<UUID> ids = new ArrayList<>(errors.keySet());
    List<String> messages = new ArrayList<>(errors.size());
    for (String m : errors.values()) {
      messages.add(m.length() > MAX_ERROR_LENGTH ? m.substring(0, MAX_ERROR_LENGTH) : m);
    }
    Savepoint savepoint = null;
    try {
      savepoint = connection.setSavepoint();
      try (PreparedStatement ps = connection.prepareStatement(RECORD_FAILURES)) {
        ps.setObject(1, Jdbc.ts(asOf));
        ps.setString(2, asOf.toString());
        ps.setObject(3, Jdbc.ts(asOf));
        ps.setLong(4, retryCap.toMillis());
        ps.setLong(5, retryBase.toMillis());
        ps.setArray(6, Jdbc.uuidArray(connection, ids));
        ps.setArray(7, Jdbc.textArray(connection, messages));
        ps.executeUpdate();
      }
      connection.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      if (savepoint == null || !Jdbc.isDataError(e)) {
        throw new StoreException("recording poison rows failed: " + Jdbc.describe(e), e);
      }
      // The bookkeeping itself is rejected by the row (e.g. a trigger): keep the healthy rows'
      // closes.
      try {
        connection.rollback(savepoint);
      } catch (SQLException rollbackFailure) {
        throw new StoreException(
            "recording poison rows failed: " + Jdbc.describe(rollbackFailure), rollbackFailure);
      }
      log.atWarn()
          .addKeyValue("conferenceIds", ids)
          .addKeyValue("reason", Jdbc.describe(e))
          .log("could not keep the error on poison rows; they are logged only");
    }
  }
}
