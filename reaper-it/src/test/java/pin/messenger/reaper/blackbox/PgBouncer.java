package pin.messenger.reaper.blackbox;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PgBouncer process of its own (Debian's {@code pgbouncer}, 1.18 on bookworm) in front of a
 * {@link PostgresServer}, in <b>transaction</b> pooling mode: its own ini and userlist in a temp
 * directory, auth_type trust, a free loopback port. Started in the foreground (not {@code -d}) so
 * that {@link #close} ends exactly this process; as the {@code postgres} user when we are root
 * (PgBouncer refuses to run as root).
 */
final class PgBouncer implements AutoCloseable {
  /** Where Debian installs it; else whatever {@code pgbouncer} is on the PATH. */
  private static final List<Path> CANDIDATES =
      List.of(Path.of("/usr/sbin/pgbouncer"), Path.of("/usr/bin/pgbouncer"));

  /**
   * The JDBC setting PgBouncer's transaction mode needs: no named server-side prepared statements
   * (PgBouncer before 1.21 does not keep them per client).
   */
  static final String PREPARE_THRESHOLD = "prepareThreshold=0";

  private final Process process;
  private final Path dir;
  private final int port;

  private PgBouncer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /** The pgbouncer binary, if installed. */
  static Optional<Path> binary() {
    for (Path p : CANDIDATES) {
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(d, "pgbouncer");
      if (!d.isEmpty() && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  static PgBouncer start(PostgresServer server) throws Exception {
    Path bin = binary().orElseThrow(() -> new IllegalStateException("pgbouncer not installed"));
    Path dir = Files.createTempDirectory("reaper-pgbouncer");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Files.writeString(dir.resolve("userlist.txt"), "\"postgres\" \"\"\n");
    Files.writeString(
        dir.resolve("pgbouncer.ini"),
        """
        [databases]
        * = host=127.0.0.1 port=%d
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = %d
        unix_socket_dir =
        auth_type = trust
        auth_file = %s
        pool_mode = transaction
        max_client_conn = 500
        default_pool_size = 40
        admin_users = postgres
        logfile = %s
        """
            .formatted(
                server.port(), port, dir.resolve("userlist.txt"), dir.resolve("pgbouncer.log")));
    boolean root = "root".equals(System.getProperty("user.name"));
    List<String> command = new ArrayList<>();
    if (root) {
      run(List.of("chown", "-R", "postgres", dir.toString()));
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.addAll(List.of(bin.toString(), dir.resolve("pgbouncer.ini").toString()));
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .start();
    PgBouncer bouncer = new PgBouncer(p, dir, port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return bouncer;
      } catch (IOException notYet) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          bouncer.close();
          throw new IllegalStateException(
              "pgbouncer did not start: " + Files.readString(dir.resolve("stdout.log")));
        }
        Thread.sleep(50);
      }
    }
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
    }
  }

  /** The URL through PgBouncer as a user must write it: with {@link #PREPARE_THRESHOLD}. */
  String jdbcUrl() {
    return rawJdbcUrl() + "?" + PREPARE_THRESHOLD;
  }

  /** The URL through PgBouncer without the setting (pgjdbc's defaults). */
  String rawJdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  Path log() {
    return dir.resolve("pgbouncer.log");
  }

  @Override
  public void close() throws Exception {
    // With runuser in front, pgbouncer is runuser's child: end it (SIGTERM = shut down at once),
    // then runuser returns.
    for (ProcessHandle child : process.descendants().toList()) {
      child.destroy();
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    PostgresServer.deleteQuietly(dir);
  }
}
