package pin.messenger.reaper.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process of the bench: started, timed to its exit, or stopped as a deployment stops it.
 * Every wait is bounded; a child that outlives its bound is killed and the bench says which.
 */
final class Child {
  /** How a child ended: its exit status, its standard output and the wall time from start. */
  record Exit(int status, String output, double millis) {}

  private Child() {}

  /**
   * Starts {@code pb} and waits for its exit, reading its standard output (all of it: the caller
   * decides what to keep). A child still running after {@code timeout} is killed and is an error.
   */
  static Exit toExit(ProcessBuilder pb, Duration timeout) throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(
          String.join(" ", pb.command()) + ": did not exit within " + timeout.toSeconds() + " s");
    }
    long t1 = System.nanoTime();
    return new Exit(p.exitValue(), new String(out, StandardCharsets.UTF_8), (t1 - t0) / 1e6);
  }

  /** Runs {@code pb} with its output in {@code log}; anything but exit 0 is an error naming it. */
  static void run(ProcessBuilder pb, Path log, Duration timeout)
      throws IOException, InterruptedException {
    Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(
          String.join(" ", pb.command()) + " failed; the end of " + log + ":\n" + tail(log));
    }
  }

  /** The last 30 lines of a child's log, for an error message. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /**
   * SIGTERM, as a rolling deploy stops a worker, sent through the process handle so that its output
   * stays open to whoever drains it; killed if it has not ended within {@code grace}.
   */
  static void stop(Process p, Duration grace) {
    p.toHandle().destroy();
    try {
      if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
