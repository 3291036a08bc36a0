package pin.messenger.reaper.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/**
 * A child's standard output read as it comes, on a thread of its own (a pipe, as a container's
 * stdout is): each line is handed over with the moment it arrived, the last lines are kept for an
 * error message, and {@link #ended()} completes when the child closes its output.
 */
final class ChildOutput extends Thread {
  /** What is done with each line, on the reading thread. */
  interface Listener {
    void line(String line, long arrivedNanos);
  }

  private static final int TAIL = 40;

  private final Process process;
  private final Listener listener;
  private final Deque<String> tail = new ArrayDeque<>();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  private ChildOutput(Process process, String name, Listener listener) {
    super(name);
    setDaemon(true);
    this.process = process;
    this.listener = listener;
  }

  /** Starts reading {@code process}'s output. */
  static ChildOutput follow(Process process, String name, Listener listener) {
    ChildOutput out = new ChildOutput(process, name, listener);
    out.start();
    return out;
  }

  @Override
  public void run() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        long now = System.nanoTime();
        listener.line(line, now);
        synchronized (tail) {
          tail.addLast(line);
          if (tail.size() > TAIL) {
            tail.removeFirst();
          }
        }
      }
    } catch (IOException e) {
      // The process ended; what was read stays.
    } finally {
      ended.complete(null);
    }
  }

  /** Completes once the child has closed its output. */
  CompletableFuture<Void> ended() {
    return ended;
  }

  /** The last lines read, for an error message. */
  String tail() {
    synchronized (tail) {
      return String.join("\n", tail);
    }
  }
}
