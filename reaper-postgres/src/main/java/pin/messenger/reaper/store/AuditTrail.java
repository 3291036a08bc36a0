package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.store.OperatorActions.AuditFilter;
import pin.messenger.reaper.store.OperatorActions.Request;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operators' audit trail ({@code messenger.conference_reaper_audit}): the row each applied
 * action writes in its own transaction, and the newest rows as {@code bin/reaper audit} reads them.
 */
final class AuditTrail {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  static final String AUDIT =
      """
      INSERT INTO messenger.conference_reaper_audit (at, actor, action, arguments, reason, rows_changed, changed)
      VALUES (?, ?, ?, ?::jsonb, ?, ?, ?::jsonb)
      RETURNING id
      """;

  /**
   * The newest audit rows matching the filters, newest first; {@code db_role} is the database role
   * that wrote each (filled by the database, V7; null before). Parameters: action, action, actor,
   * actor, since, limit.
   */
  static final String RECENT =
      """
      SELECT id, at, actor, db_role, action, arguments::text AS arguments, reason, rows_changed,
             changed::text AS changed
        FROM messenger.conference_reaper_audit
       WHERE (?::text IS NULL OR action = ?)
         AND (?::text IS NULL OR actor = ?)
         AND at >= coalesce(?::timestamptz, '-infinity')
       ORDER BY id DESC LIMIT ?
      """;

  private AuditTrail() {}

  /** Writes the audit row of an applied action; returns its id. */
  static long write(Connection c, Request request, List<Map<String, Object>> rows)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(AUDIT)) {
      ps.setObject(1, Jdbc.ts(request.at()));
      ps.setString(2, request.actor());
      ps.setString(3, request.action().label());
      ps.setString(4, JSON.writeValueAsString(request.arguments()));
      ps.setString(5, request.reason());
      ps.setInt(6, rows.size());
      ps.setString(7, JSON.writeValueAsString(rows));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * The newest audit rows matching {@code filter}, newest first: {@code arguments} as a map, and
   * {@code ids}, every id the action changed (a conference, an outbox row, a pause's scope, and for
   * {@code end} each row it wrote), in place of the full {@code changed} document.
   */
  static List<Map<String, Object>> recent(DataSource dataSource, AuditFilter filter)
      throws SQLException {
    OperatorAction only = filter.action();
    @Nullable String action = only == null ? null : only.label();
    try (Connection c = dataSource.getConnection()) {
      List<Map<String, Object>> rows =
          Jdbc.rows(
              c,
              RECENT,
              action,
              action,
              filter.actor(),
              filter.actor(),
              Jdbc.ts(filter.since()),
              filter.limit());
      for (Map<String, Object> r : rows) {
        r.put("arguments", JSON.readValue((String) r.get("arguments"), Map.class));
        r.put("ids", changedIds(Jdbc.jsonList(r.remove("changed"))));
      }
      return rows;
    }
  }

  /** The ids in an audit row's {@code changed}: each row's id (or scope) and what it wrote. */
  static List<String> changedIds(List<Object> changed) {
    List<String> ids = new ArrayList<>();
    for (Object o : changed) {
      if (!(o instanceof Map<?, ?> row)) {
        continue;
      }
      Object id = row.get("id") != null ? row.get("id") : row.get("scope");
      if (id != null) {
        ids.add(String.valueOf(id));
      }
      if (row.get("written") instanceof Map<?, ?> written) {
        for (Object list : written.values()) {
          if (list instanceof List<?> l) {
            l.forEach(x -> ids.add(String.valueOf(x)));
          }
        }
      }
    }
    return ids;
  }
}
