package pin.messenger.reaper.dev;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import pin.messenger.reaper.app.ReaperCli;

/**
 * {@code train-archive --jar J --log L -- <java and its options>}: one training start of jar J's
 * {@code run} up to a refreshed context, against a throwaway embedded PostgreSQL, in a clean
 * environment and a scratch working directory, so that the class-data (or AOT) archive named in the
 * options is written and no configured database, broker or media stack is ever touched. The
 * production jar cannot start without a database, hence this helper.
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
    try (EmbeddedPostgres postgres =
        EmbeddedPostgres.builder()
            .setDataDirectory(scratch.resolve("pgdata"))
            .setCleanDataDirectory(true)
            .start()) {
      List<String> command = new ArrayList<>(java);
      command.addAll(
          List.of(
              "-Dspring.context.exit=onRefresh", "-jar", jar.toString(), "run", "--server.port=0"));
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
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        System.err.println(
            "train-archive: the training start did not end within 5 minutes; see " + log);
        return 1;
      }
      return p.exitValue();
    } finally {
      deleteTree(scratch.toFile());
    }
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
