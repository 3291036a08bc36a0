package pin.messenger.reaper.dev;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import pin.messenger.reaper.app.cli.ReaperCli;

/**
 * {@code train-archive --jar J --log L -- <java and its options>}: one training start of jar J's
 * {@code run} up to its first completed cycle, against a throwaway embedded PostgreSQL, in a clean
 * environment and a scratch working directory, so that the class-data archive or AOT cache named in
 * the options is written and no configured database, broker or media stack is ever touched. The
 * production jar cannot start without a database, hence this helper.
 *
 * <p>The worker is stopped with SIGTERM once its log shows {@code cycle completed}; the JVM writes
 * the archive (or, on Java 25, records and assembles the AOT cache) on its way out. Training
 * through the first cycle, rather than only to a refreshed context, also caches the classes (and,
 * for the AOT cache, the method profiles) of the claim statements, the JDBC driver's result
 * handling and the JSON log encoding, which a restarted worker needs before its first cycle is
 * done.
 */
final class TrainArchive {
  private TrainArchive() {}

  static int run(List<String> args) throws Exception {
    int split = args.indexOf("--");
    if (split < 0 || split + 1 >= args.size()) {
      throw new ReaperCli.UsageException(
          "train-archive --jar <jar> --log <file> -- <java> <options...>");
    }
    List<String> own = args.subList(0, split);
    List<String> java = new ArrayList<>(args.subList(split + 1, args.size()));
    Path jar = Path.of(value(own, "--jar")).toAbsolutePath();
    Path log = Path.of(value(own, "--log")).toAbsolutePath();
    Path scratch = Files.createTempDirectory("reaper-train");
    // This JVM has no logging configuration: the database library's progress lines at warnings
    // only, and initdb's and the server's output in a file beside the training log, so that
    // bin/reaper's first start does not print them.
    LoggingSystem.get(TrainArchive.class.getClassLoader())
        .setLogLevel("io.zonky.test.db.postgres", LogLevel.WARN);
    ProcessBuilder.Redirect postgresOutput =
        ProcessBuilder.Redirect.appendTo(
            log.resolveSibling(log.getFileName() + ".postgres").toFile());
    try (EmbeddedPostgres postgres =
        EmbeddedPostgres.builder()
            .setDataDirectory(scratch.resolve("pgdata"))
            .setCleanDataDirectory(true)
            .setOutputRedirector(postgresOutput)
            .setErrorRedirector(postgresOutput)
            .start()) {
      List<String> command = new ArrayList<>(java);
      command.addAll(List.of("-jar", jar.toString(), "run", "--server.port=0"));
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .directory(scratch.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      Map<String, String> env = pb.environment();
      String path = env.getOrDefault("PATH", "/usr/bin:/bin");
      String javaHome = env.get("JAVA_HOME");
      env.clear();
      env.put("PATH", path);
      env.put("HOME", scratch.toString());
      if (javaHome != null) {
        env.put("JAVA_HOME", javaHome);
      }
      env.put("SPRING_DATASOURCE_URL", postgres.getJdbcUrl("postgres", "postgres"));
      env.put("SPRING_DATASOURCE_USERNAME", "postgres");
      Process p = pb.start();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (p.isAlive() && !firstCycleLogged(log)) {
        if (System.nanoTime() > deadline) {
          p.destroyForcibly();
          System.err.println(
              "train-archive: no completed cycle within 5 minutes of the training start; see "
                  + log);
          return 1;
        }
        Thread.sleep(100);
      }
      if (!p.isAlive()) {
        System.err.println(
            "train-archive: the training start ended (exit "
                + p.exitValue()
                + ") before its first cycle; see "
                + log);
        return 1;
      }
      p.destroy(); // SIGTERM: a graceful stop, during which the archive or cache is written
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        System.err.println(
            "train-archive: the training start did not stop within 5 minutes; see " + log);
        return 1;
      }
      // 143 = 128 + SIGTERM: the JVM's exit status after a signal-initiated shutdown.
      int exit = p.exitValue();
      return exit == 143 ? 0 : exit;
    } finally {
      deleteTree(scratch.toFile());
    }
  }

  /**
   * The jar's {@code cycle completed} event, in JSON (the production jar) or text (this one): no
   * other line of a worker says so.
   */
  private static boolean firstCycleLogged(Path log) throws IOException {
    return Files.isRegularFile(log)
        && Files.readString(log, StandardCharsets.ISO_8859_1).contains("cycle completed");
  }

  private static String value(List<String> args, String name) {
    int i = args.indexOf(name);
    if (i < 0 || i + 1 >= args.size()) {
      throw new ReaperCli.UsageException("train-archive needs " + name + " <value>");
    }
    return args.get(i + 1);
  }

  private static void deleteTree(File f) {
    File[] children = f.listFiles();
    if (children != null) {
      for (File c : children) {
        deleteTree(c);
      }
    }
    f.delete();
  }
}
