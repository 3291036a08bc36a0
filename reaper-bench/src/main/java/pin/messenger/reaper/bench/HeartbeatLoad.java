package pin.messenger.reaper.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The messenger's presence heartbeats on the heartbeat database's live rooms, played by {@code
 * pgbench} from {@value #CLIENTS} clients, and one measured window of them: heartbeats, WAL
 * written, HOT updates. The live rooms' ids are {@code md5(n)} for n in 1..rooms, so the script
 * picks a random one without a lookup.
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

  private static final Pattern PROCESSED =
      Pattern.compile("number of transactions actually processed: (\\d+)");

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
  private final URI server;
  private final Path script;

  /**
   * {@code url}: the heartbeat database's JDBC URL; its {@code rooms} live rooms' ids are md5(n).
   */
  HeartbeatLoad(DataSource hb, String url, int rooms) throws IOException {
    this.hb = hb;
    this.server = URI.create(url.substring("jdbc:".length()));
    this.script = Files.createTempFile("heartbeat", ".sql");
    Files.writeString(
        script,
        "\\set n random(1, %d)%n%s%n".formatted(rooms, HEARTBEAT.replace("?", roomId(":n"))),
        StandardCharsets.UTF_8);
    script.toFile().deleteOnExit();
  }

  /** The rooms' ids as the script computes them, for the insert that makes the live rooms. */
  static String roomId(String n) {
    return "CAST(md5(CAST(" + n + " AS text)) AS uuid)";
  }

  /** The clients for {@code duration} (whole seconds); returns the heartbeats done. */
  long clients(Duration duration) throws Exception {
    List<String> command =
        List.of(
            "pgbench",
            "--no-vacuum",
            "--protocol=prepared",
            "--client=" + CLIENTS,
            "--jobs=" + CLIENTS,
            "--time=" + Math.max(1, duration.toSeconds()),
            "--file=" + script,
            "--host=" + server.getHost(),
            "--port=" + server.getPort(),
            "--username=postgres",
            server.getPath().substring(1));
    Child.Exit exit;
    try {
      exit =
          Child.toExit(
              new ProcessBuilder(command).redirectErrorStream(true),
              duration.plus(Duration.ofMinutes(1)));
    } catch (IOException e) {
      throw new IllegalStateException(
          "the heartbeat section needs pgbench on the PATH (Debian: postgresql-client)", e);
    }
    Matcher m = PROCESSED.matcher(exit.output());
    if (exit.status() != 0 || !m.find()) {
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + exit.output());
    }
    return Long.parseLong(m.group(1));
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
  static long[] flushedCounters(DataSource db, long expected) throws Exception {
    long[] last = {-1, -1};
    for (int i = 0; i < 200; i++) {
      long[] now = ScaleStatements.updates(db);
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
