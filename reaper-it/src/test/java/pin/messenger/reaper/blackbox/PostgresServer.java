package pin.messenger.reaper.blackbox;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server in its own process for black-box runs: Debian's PostgreSQL 15 when its
 * binaries are installed (the version the issue names; started as the {@code postgres} user when we
 * are root), otherwise the embedded PostgreSQL 17 binaries. {@code REAPER_BLACKBOX_PG_BIN} points
 * at another bin directory.
 */
final class PostgresServer implements AutoCloseable {
  private final Path dataDir;
  private final Path bin;
  private final int port;
  private final EmbeddedPostgres embedded;
  final String version;

  private PostgresServer(
      Path dataDir, Path bin, int port, EmbeddedPostgres embedded, String version) {
    this.dataDir = dataDir;
    this.bin = bin;
    this.port = port;
    this.embedded = embedded;
    this.version = version;
  }

  static PostgresServer start() throws Exception {
    String configured = System.getenv("REAPER_BLACKBOX_PG_BIN");
    Path bin = Path.of(configured != null ? configured : "/usr/lib/postgresql/15/bin");
    if (!Files.isExecutable(bin.resolve("pg_ctl"))) {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      return new PostgresServer(null, null, pg.getPort(), pg, "embedded 17");
    }
    Path dir = Files.createTempDirectory("reaper-blackbox-pg");
    Path data = dir.resolve("data");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    if (root) {
      run(List.of("chown", "-R", "postgres", dir.toString()));
    }
    run(
        asPostgres(
            root,
            bin.resolve("initdb").toString(),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-D",
            data.toString()));
    run(
        asPostgres(
            root,
            bin.resolve("pg_ctl").toString(),
            "-D",
            data.toString(),
            "-l",
            dir.resolve("server.log").toString(),
            "-o",
            "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1",
            "-w",
            "start"));
    return new PostgresServer(data, bin, port, null, bin.toString());
  }

  private static List<String> asPostgres(boolean root, String... command) {
    List<String> all = new ArrayList<>();
    if (root) {
      all.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    all.addAll(List.of(command));
    return all;
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
    }
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  @Override
  public void close() throws Exception {
    if (embedded != null) {
      embedded.close();
      return;
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    run(
        asPostgres(
            root,
            bin.resolve("pg_ctl").toString(),
            "-D",
            dataDir.toString(),
            "-m",
            "fast",
            "-w",
            "stop"));
  }

  /**
   * True when this is a server process of its own that {@link #restart} can restart (not the
   * embedded fallback).
   */
  boolean restartable() {
    return embedded == null;
  }

  /**
   * Restarts the server in place: {@code pg_ctl restart -m fast -w}, same data directory, same
   * port. Fast shutdown ends every session (clients see 57P01) and rolls back open transactions;
   * returns once the server accepts connections again.
   */
  void restart() throws Exception {
    if (embedded != null) {
      throw new UnsupportedOperationException(
          "the embedded fallback server cannot be restarted in place");
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = dataDir.getParent();
    run(
        asPostgres(
            root,
            bin.resolve("pg_ctl").toString(),
            "-D",
            dataDir.toString(),
            "-l",
            dir.resolve("server.log").toString(),
            "-o",
            "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1",
            "-m",
            "fast",
            "-w",
            "restart"));
  }

  /** The server's log file (null for the embedded fallback). */
  Path serverLog() {
    return dataDir == null ? null : dataDir.getParent().resolve("server.log");
  }
}
