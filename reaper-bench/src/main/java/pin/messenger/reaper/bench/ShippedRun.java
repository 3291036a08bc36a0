package pin.messenger.reaper.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The production jar as shipped, started by {@code bin/reaper} (its JVM flags and start-up cache)
 * as the bench's child, against a database of the bench's server, logging at its default level:
 * stdout to whoever reads it, stderr to a file in {@code logs}.
 */
record ShippedRun(Launcher launcher, BenchServer server, Path logs) {
  /** Finds {@code bin/reaper} and has it unpack and train now, not inside a measurement. */
  static ShippedRun prepare(String section, BenchServer server) throws Exception {
    Launcher launcher = Launcher.find(section);
    ShippedRun run =
        new ShippedRun(launcher, server, Files.createTempDirectory("reaper-" + section));
    launcher.prepare(launcher.worker(server.url("postgres"), List.of()), run.log("prepare.log"));
    return run;
  }

  Path log(String name) {
    return logs.resolve(name);
  }

  /** {@code bin/reaper <args>} on {@code database}, its stderr in {@code <name>.stderr}. */
  Process start(String database, String name, List<String> args) throws IOException {
    return builder(database, name, args).start();
  }

  /** {@code bin/reaper <args>} on {@code database}, timed to its exit (which the caller checks). */
  Child.Exit toExit(String database, String name, List<String> args, Duration timeout)
      throws IOException, InterruptedException {
    return Child.toExit(builder(database, name, args), timeout);
  }

  /** {@code bin/reaper <args>} on {@code database} to a zero exit, its output in {@code name}. */
  void run(String database, String name, List<String> args)
      throws IOException, InterruptedException {
    Child.run(launcher.worker(server.url(database), args), log(name), Duration.ofMinutes(10));
  }

  private ProcessBuilder builder(String database, String name, List<String> args) {
    return launcher
        .worker(server.url(database), args)
        .redirectError(log(name + ".stderr").toFile());
  }
}
