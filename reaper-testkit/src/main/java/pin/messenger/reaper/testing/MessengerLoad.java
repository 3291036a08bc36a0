package pin.messenger.reaper.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The messenger's commands, played against the same rows the reaper works on, the way the commands
 * do it: one transaction that locks the session row ({@code FOR UPDATE}), checks its status,
 * changes it, and holds the lock for the command's own work before committing. join, leave,
 * end-conference and the admission webhook.
 *
 * <p>Each thread starts at most one command every {@link #PACE} (50 a second per thread): every
 * reaper cycle of the scenarios (1 s apart) still meets a couple of hundred commands on its rows,
 * and the load does not take the cores from the workers it is meant to disturb.
 */
public final class MessengerLoad implements AutoCloseable {
  /** The shortest time between the starts of two commands of one thread. */
  public static final Duration PACE = Duration.ofMillis(20);

  private final DataSource dataSource;
  private final List<UUID> ids;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();
  public final AtomicLong commands = new AtomicLong();
  public final AtomicLong applied = new AtomicLong();
  public final AtomicLong errors = new AtomicLong();

  public MessengerLoad(DataSource dataSource, List<UUID> ids) {
    this.dataSource = dataSource;
    this.ids = List.copyOf(ids);
  }

  public MessengerLoad start(int threadCount, long seed) {
    for (int t = 0; t < threadCount; t++) {
      Random random = new Random(seed + t);
      Thread thread = new Thread(() -> loop(random), "messenger-load-" + t);
      thread.setDaemon(true);
      thread.start();
      threads.add(thread);
    }
    return this;
  }

  private void loop(Random random) {
    long next = System.nanoTime();
    while (running.get()) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      // A command that overran its slot (a slow commit, a refused connection) starts the next
      // slot from now: no burst to catch up.
      next = Math.max(next, System.nanoTime() - PACE.toNanos()) + PACE.toNanos();
      UUID id = ids.get(random.nextInt(ids.size()));
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(false);
        if (command(c, id, random)) {
          applied.incrementAndGet();
        }
        c.commit();
      } catch (SQLException e) {
        errors.incrementAndGet();
      }
      commands.incrementAndGet();
    }
  }

  private boolean command(Connection c, UUID id, Random random) throws SQLException {
    String status;
    int count;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT status, active_participant_count FROM messenger.conference_sessions WHERE id = ? FOR UPDATE")) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        status = rs.getString(1);
        count = rs.getInt(2);
      }
    }
    Instant now = Instant.now();
    int pick = random.nextInt(100);
    int n;
    if (status.equals("Provisioning")) {
      n =
          pick < 30
              ? exec(
                  c,
                  """
          UPDATE messenger.conference_sessions SET status = 'Active', started_at = ?, last_activity_at = ?,
                 updated_at = ?, active_participant_count = 1, peak_participant_count = 1
           WHERE id = ? AND status = 'Provisioning'""",
                  ts(now),
                  ts(now),
                  ts(now),
                  id)
              : 0;
    } else if (!status.equals("Active")) {
      return false;
    } else if (pick < 45) {
      n =
          exec(
              c,
              """
          UPDATE messenger.conference_sessions SET active_participant_count = active_participant_count + 1,
                 peak_participant_count = greatest(peak_participant_count, active_participant_count + 1),
                 last_activity_at = ?, updated_at = ?
           WHERE id = ? AND status = 'Active'""",
              ts(now),
              ts(now),
              id);
      exec(
          c,
          "INSERT INTO messenger.conference_participants VALUES (?, ?, ?, NULL)",
          id,
          UUID.randomUUID(),
          ts(now));
    } else if (pick < 90) {
      n =
          count == 0
              ? 0
              : exec(
                  c,
                  """
          UPDATE messenger.conference_sessions SET active_participant_count = active_participant_count - 1,
                 last_activity_at = ?, updated_at = ?
           WHERE id = ? AND status = 'Active' AND active_participant_count > 0""",
                  ts(now),
                  ts(now),
                  id);
    } else {
      n =
          exec(
              c,
              """
          UPDATE messenger.conference_sessions SET status = 'Ended', end_reason = 'Completed', ended_at = ?,
                 updated_at = ?, active_participant_count = 0,
                 duration_seconds = floor(extract(epoch FROM ?::timestamptz - started_at))::bigint
           WHERE id = ? AND status = 'Active'""",
              ts(now),
              ts(now),
              ts(now),
              id);
    }
    // The command's own work while it holds the row (what makes the reaper meet locked rows).
    try {
      Thread.sleep(random.nextInt(3));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return n > 0;
  }

  private static int exec(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    }
  }

  private static Object ts(Instant i) {
    return Rooms.ts(i);
  }

  /** Stops the commands and waits for the in-flight ones to commit. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(10_000);
    }
  }

  /**
   * Seeds {@code n} conferences: overdue empty rooms, old Provisioning rooms, stale rooms and live
   * ones.
   */
  public static List<UUID> seed(Rooms rooms, int n, Instant now) {
    List<Rooms.Room> all = new ArrayList<>(n);
    Random random = new Random(7);
    for (int i = 0; i < n; i++) {
      int kind = random.nextInt(100);
      Rooms.Room r =
          kind < 35
              ? Rooms.emptyActive(now.minusSeconds(100 + random.nextInt(3600)))
              : kind < 50
                  ? Rooms.provisioning(now.minusSeconds(130 + random.nextInt(3600)))
                  : kind < 60
                      ? Rooms.occupied(now.minusSeconds(4 * 3600 + 10 + random.nextInt(3600)), 2)
                      : Rooms.occupied(now.minusSeconds(random.nextInt(60)), 1 + random.nextInt(3));
      all.add(r);
    }
    for (int from = 0; from < all.size(); from += 2000) {
      rooms.insertAll(all.subList(from, Math.min(all.size(), from + 2000)));
    }
    return all.stream().map(r -> r.id).toList();
  }
}
