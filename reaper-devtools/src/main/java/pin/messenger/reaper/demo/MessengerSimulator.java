package pin.messenger.reaper.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stand-in for the messenger's own writers, for {@code bin/reaper demo} and tests: rooms are
 * created, admitted (or never), people join, heartbeat, leave properly or drop without leaving,
 * some rooms end through end-conference, some are re-joined within the grace. Every write is
 * status-guarded like the real commands, so a room the reaper closed is left alone.
 */
public final class MessengerSimulator {
  private static final Logger log = LoggerFactory.getLogger(MessengerSimulator.class);

  /** How a simulated room's life goes. */
  enum Fate {
    END_NORMALLY,
    ALL_LEAVE,
    DROP_WITHOUT_LEAVE,
    NEVER_ADMITTED,
    REJOIN_WITHIN_GRACE
  }

  private static final class Room {
    final UUID id = UUID.randomUUID();
    final UUID chatId = UUID.randomUUID();
    final UUID dealId = UUID.randomUUID();
    final UUID tenantId = UUID.randomUUID();
    final List<UUID> users = new ArrayList<>();
    @Nullable Fate fate;
    @Nullable Instant admitAt;
    @Nullable Instant fateAt;
    @Nullable Instant rejoinAt;
    @Nullable Instant lastHeartbeat;
    boolean active;
    boolean emptied;
  }

  private final DataSource dataSource;
  private final Clock clock;
  private final Duration emptyRoomGrace;
  private final Random random;
  private final List<Room> rooms = new ArrayList<>();
  private final Set<UUID> rejoined = ConcurrentHashMap.newKeySet();
  private int created;

  public MessengerSimulator(
      DataSource dataSource, Clock clock, Duration emptyRoomGrace, long seed) {
    this.dataSource = dataSource;
    this.clock = clock;
    this.emptyRoomGrace = emptyRoomGrace;
    this.random = new Random(seed);
  }

  /** Rooms that someone re-joined within the grace: none of them may be closed as empty. */
  public Set<UUID> rejoinedRooms() {
    return Set.copyOf(rejoined);
  }

  public int roomsCreated() {
    return created;
  }

  /** One step of the simulated messenger; call it every few hundred milliseconds. */
  public void step() {
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection()) {
      if (random.nextDouble() < 0.6) {
        createRoom(c, now);
      }
      for (Iterator<Room> it = rooms.iterator(); it.hasNext(); ) {
        if (advance(c, it.next(), now)) {
          it.remove();
        }
      }
    } catch (SQLException e) {
      log.atWarn().addKeyValue("reason", e.getMessage()).log("simulated messenger step failed");
    }
  }

  private void createRoom(Connection c, Instant now) throws SQLException {
    Room r = new Room();
    double p = random.nextDouble();
    r.fate =
        p < 0.30
            ? Fate.END_NORMALLY
            : p < 0.55
                ? Fate.ALL_LEAVE
                : p < 0.70
                    ? Fate.DROP_WITHOUT_LEAVE
                    : p < 0.85 ? Fate.NEVER_ADMITTED : Fate.REJOIN_WITHIN_GRACE;
    r.admitAt = now.plusMillis(300 + random.nextInt(1500));
    int people = 1 + random.nextInt(4);
    for (int i = 0; i < people; i++) {
      r.users.add(UUID.randomUUID());
    }
    exec(
        c,
        """
        INSERT INTO messenger.conference_sessions
               (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at,
                last_activity_at, updated_at)
        VALUES (?, ?, ?, ?, ?, 'Provisioning', ?, ?, ?, ?)
        """,
        r.id,
        r.chatId,
        r.dealId,
        r.tenantId,
        random.nextBoolean() ? "Video" : "Audio",
        r.users.get(0),
        ts(now),
        ts(now),
        ts(now));
    rooms.add(r);
    created++;
  }

  /**
   * Returns true when the simulator is done with the room (what happens next is the reaper's
   * business).
   */
  private boolean advance(Connection c, Room r, Instant now) throws SQLException {
    if (!r.active) {
      if (r.fate == Fate.NEVER_ADMITTED) {
        return true;
      }
      if (now.isBefore(r.admitAt)) {
        return false;
      }
      admit(c, r, now);
      return false;
    }
    if (r.rejoinAt != null && !now.isBefore(r.rejoinAt)) {
      int n = participants(c, r, 1, now);
      exec(
          c,
          "INSERT INTO messenger.conference_participants VALUES (?, ?, ?, NULL)",
          r.id,
          r.users.get(0),
          ts(now));
      if (n == 1) {
        rejoined.add(r.id);
      }
      r.rejoinAt = null;
      r.emptied = false;
      r.fate = Fate.END_NORMALLY;
      r.fateAt = now.plusSeconds(1 + random.nextInt(3));
      return false;
    }
    if (r.emptied) {
      return false;
    }
    if (now.isBefore(r.fateAt)) {
      if (r.lastHeartbeat == null || Duration.between(r.lastHeartbeat, now).toMillis() >= 1000) {
        exec(
            c,
            "UPDATE messenger.conference_sessions SET last_activity_at = ? WHERE id = ? AND status = 'Active'",
            ts(now),
            r.id);
        r.lastHeartbeat = now;
      }
      return false;
    }
    switch (java.util.Objects.requireNonNull(r.fate, "an admitted room has its fate")) {
      case END_NORMALLY -> {
        exec(
            c,
            """
            UPDATE messenger.conference_sessions
               SET status = 'Ended', end_reason = 'Completed', ended_at = ?, updated_at = ?,
                   active_participant_count = 0,
                   duration_seconds = floor(extract(epoch FROM ?::timestamptz - started_at))::bigint
             WHERE id = ? AND status = 'Active'
            """,
            ts(now),
            ts(now),
            ts(now),
            r.id);
        return true;
      }
      case ALL_LEAVE, REJOIN_WITHIN_GRACE -> {
        participants(c, r, 0, now);
        exec(
            c,
            "UPDATE messenger.conference_participants SET left_at = ? WHERE conference_id = ? AND left_at IS NULL",
            ts(now),
            r.id);
        if (r.fate == Fate.REJOIN_WITHIN_GRACE) {
          r.rejoinAt = now.plusMillis(emptyRoomGrace.toMillis() / 2);
          r.emptied = true;
          return false;
        }
        return true;
      }
      default -> {
        return true; // DROP_WITHOUT_LEAVE: heartbeats just stop, the count stays > 0.
      }
    }
  }

  private void admit(Connection c, Room r, Instant now) throws SQLException {
    int n =
        exec(
            c,
            """
            UPDATE messenger.conference_sessions
               SET status = 'Active', started_at = ?, last_activity_at = ?, updated_at = ?,
                   active_participant_count = ?, peak_participant_count = ?
             WHERE id = ? AND status = 'Provisioning'
            """,
            ts(now),
            ts(now),
            ts(now),
            r.users.size(),
            r.users.size(),
            r.id);
    if (n == 0) {
      r.fate = Fate.NEVER_ADMITTED; // the reaper failed it first
      return;
    }
    for (UUID user : r.users) {
      exec(
          c,
          "INSERT INTO messenger.conference_participants VALUES (?, ?, ?, NULL)",
          r.id,
          user,
          ts(now));
    }
    if (random.nextDouble() < 0.3) {
      exec(
          c,
          "INSERT INTO messenger.call_recordings VALUES (?, ?, 'Recording', ?, ?)",
          UUID.randomUUID(),
          r.id,
          ts(now),
          ts(now));
    }
    r.active = true;
    r.lastHeartbeat = now;
    r.fateAt = now.plusSeconds(2 + random.nextInt(5));
  }

  private static OffsetDateTime ts(Instant i) {
    return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  private static int exec(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    }
  }

  /** The messenger's side of a join or a leave: the active count and the activity time. */
  private static int participants(Connection c, Room r, int count, Instant now)
      throws SQLException {
    return exec(
        c,
        """
        UPDATE messenger.conference_sessions
           SET active_participant_count = ?, last_activity_at = ?, updated_at = ?
         WHERE id = ? AND status = 'Active'
        """,
        count,
        ts(now),
        ts(now),
        r.id);
  }
}
