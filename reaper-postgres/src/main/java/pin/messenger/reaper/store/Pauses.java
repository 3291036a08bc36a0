package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.PauseState;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reading the operators' pauses ({@code messenger.conference_reaper_pauses}): the expression the
 * run lock's round trip carries, and its decoding. Written only by {@link PauseActions}.
 */
public final class Pauses {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * Every stored pause as one JSON array (null: none), times as epoch milliseconds so that the
   * session's time zone cannot matter. A select-list expression: it rides along with the run-lock
   * attempt, so a cycle reads its pauses without another round trip.
   */
  static final String AS_JSON =
      """
      (SELECT json_agg(json_build_object(
                'scope', p.scope, 'reason', p.reason, 'actor', p.actor,
                'pausedAt', (extract(epoch FROM p.paused_at) * 1000)::bigint,
                'until', (extract(epoch FROM p.until) * 1000)::bigint) ORDER BY p.scope)
         FROM messenger.conference_reaper_pauses p)""";

  static final String READ = "SELECT " + AS_JSON + " AS pauses";

  private Pauses() {}

  /** The stored pauses, expired ones included. */
  public static PauseState read(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(READ);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return decode(rs.getString(1));
    }
  }

  /** {@link #AS_JSON}'s value as a {@link PauseState}. */
  static PauseState decode(String json) {
    if (json == null) {
      return PauseState.NONE;
    }
    List<PauseState.Pause> out = new ArrayList<>();
    for (JsonNode p : JSON.readTree(json)) {
      out.add(
          new PauseState.Pause(
              p.get("scope").asString(),
              p.get("reason").asString(),
              p.get("actor").asString(),
              millis(p.get("pausedAt")),
              millis(p.get("until"))));
    }
    return new PauseState(out);
  }

  private static @Nullable Instant millis(@Nullable JsonNode n) {
    return n == null || n.isNull() ? null : Instant.ofEpochMilli(n.asLong());
  }
}
