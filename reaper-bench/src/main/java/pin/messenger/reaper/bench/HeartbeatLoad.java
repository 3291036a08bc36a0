package pin.messenger.reaper.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The messenger's presence heartbeats on the heartbeat database's live rooms, from {@value
 * #CLIENTS} clients, and one measured window of them: heartbeats, WAL written, HOT updates.
 */
final class HeartbeatLoad {
  /**
   * What the messenger writes on a presence heartbeat. The spec names only LastActivityAt; a
   * tracked entity's save also bumps UpdatedAt, so both are written (neither design indexes
   * updated_at, so the choice does not change which update is HOT).
   */
  static final String HEARTBEAT =
      "UPDATE messenger.conference_sessions SET last_activity_at = now(), updated_at = now() WHERE id = ?";

  static final int CLIENTS = 2;

  /** One design's heartbeat window: heartbeats done, seconds, WAL bytes, HOT updates. */
  record Window(long heartbeats, double seconds, long walBytes, long hot) {
    double tps() {
      return heartbeats / seconds;
    }

    double walPerHeartbeat() {
      return (double) walBytes / heartbeats;
    }

    double hotRatio() {
      return (double) hot / heartbeats;
    }
  }

  private final DataSource hb;
  private final String url;
  private final UUID[] rooms;

  HeartbeatLoad(DataSource hb, String url, UUID[] rooms) {
    this.hb = hb;
    this.url = url;
    this.rooms = rooms.clone();
  }

  /**
   * The clients for {@code duration}; returns the heartbeats done. Connections close at the end.
   */
  long clients(Duration duration) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try {
      long deadline = System.nanoTime() + duration.toNanos();
      List<Future<Long>> done = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        done.add(
            pool.submit(
                () -> {
                  long n = 0;
                  try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
                      PreparedStatement ps = c.prepareStatement(HEARTBEAT)) {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < deadline) {
                      ps.setObject(1, rooms[random.nextInt(rooms.length)]);
                      if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("heartbeat updated no row");
                      }
                      n++;
                    }
                  }
                  return n;
                }));
      }
      long total = 0;
      for (Future<Long> f : done) {
        total += f.get();
      }
      return total;
    } finally {
      pool.shutdown();
    }
  }

  Window measure(Duration window) throws Exception {
    long[] before = flushedCounters(hb, -1);
    long lsn0 = lsn(hb);
    long t0 = System.nanoTime();
    long n = clients(window);
    double seconds = (System.nanoTime() - t0) / 1e9;
    long lsn1 = lsn(hb);
    long[] after = flushedCounters(hb, before[0] + n);
    return new Window(n, seconds, lsn1 - lsn0, after[1] - before[1]);
  }

  private static long lsn(DataSource db) throws SQLException {
    return new BenchData(db).scalar("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn");
  }

  /**
   * {@code {n_tup_upd, n_tup_hot_upd}} of the table once the updates are counted: the clients'
   * backends report their counters as they exit, so wait until {@code n_tup_upd} reaches {@code
   * expected} (or, with -1, stops moving).
   */
  private static long[] flushedCounters(DataSource db, long expected) throws Exception {
    long[] last = {-1, -1};
    for (int i = 0; i < 200; i++) {
      long[] now = new long[2];
      try (Connection c = db.getConnection();
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
                      + " WHERE relid = 'messenger.conference_sessions'::regclass")) {
        rs.next();
        now[0] = rs.getLong(1);
        now[1] = rs.getLong(2);
      }
      if (expected >= 0 ? now[0] >= expected : now[0] == last[0]) {
        return now;
      }
      last = now;
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "pg_stat_user_tables did not reach " + expected + " updates (" + last[0] + ")");
  }
}
