package pin.messenger.reaper.blackbox;

import com.jayway.jsonpath.JsonPath;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One worker process of the packaged jar ({@code run}), restartable, with what it printed read as
 * it comes: one event per cycle (its "cycle completed" or "cycle failed…" line, with the worker's
 * own timestamps), when it is reaping (a "conference reaped" line), and which rows a cycle in
 * flight at a {@link #mark} closed after it. Each process writes to a file of its own under {@link
 * #log} (kept for a post-mortem), followed as it grows. Every process started here is killed by
 * {@link #close} and, should the test JVM itself die, by a shutdown hook.
 */
final class ReaperWorker implements AutoCloseable {
  private static final Set<ReaperWorker> STARTED = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> STARTED.forEach(ReaperWorker::killQuietly), "reaper-worker-cleanup"));
  }

  private static final String REAPED = "\"message\":\"conference reaped\"";
  private static final String BATCH = "\"message\":\"batch selected\"";
  private static final String CYCLE = "\"message\":\"cycle ";
  private static final String LOOP_STARTED = "\"message\":\"reaper loop started\"";
  private static final String ITEM_FAILED = "\"message\":\"item failed\"";
  private static final Pattern COUNT = Pattern.compile("\"count\":(\\d+)");

  /** A pause in "conference reaped" lines longer than this starts a new reaping streak. */
  private static final long STREAK_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

  /**
   * One cycle of the worker, from the line that ends it. {@code kind}: "completed" (its "cycle
   * completed" line, with the lock or {@link #skipped} without it) or "failed".
   */
  record CycleEvent(
      int generation,
      Instant at,
      String kind,
      boolean lockAcquired,
      long durationMs,
      long closed,
      String line) {
    /** When the cycle began (the worker measures durationMs from the start of the cycle). */
    Instant startedAt() {
      return at.minusMillis(durationMs);
    }

    /** The cycle ran to its end, holding the run lock or finding it held elsewhere. */
    boolean completed() {
      return kind.equals("completed");
    }

    /** The cycle ended without the run lock: another runner held it. */
    boolean skipped() {
      return completed() && !lockAcquired;
    }
  }

  final String name;

  /** Directory of this worker's output: one file per process (generation). */
  final Path log;

  private final Map<String, String> env;
  private final List<String> jvmOptions;
  private final List<String> args;
  private final List<CycleEvent> cycles = new CopyOnWriteArrayList<>();
  final AtomicLong reapedLines = new AtomicLong();
  final AtomicLong itemFailedLines = new AtomicLong();
  private volatile Process process;
  private volatile Thread pump;
  private volatile int generation = -1;
  private volatile CountDownLatch loopStarted;
  private volatile long lastReapNanos;
  private volatile long reapingSinceNanos;
  private volatile boolean markActive;
  private volatile boolean claimAfterMark;
  private volatile Instant markAt = Instant.MAX;
  private final AtomicLong reapedAfterMarkClaim = new AtomicLong();

  /** Bytes of the current generation's output the pump has read. */
  private final AtomicLong consumed = new AtomicLong();

  private ReaperWorker(
      String name, Path log, Map<String, String> env, List<String> jvmOptions, List<String> args) {
    this.name = name;
    this.log = log;
    this.env = Map.copyOf(env);
    this.jvmOptions = List.copyOf(jvmOptions);
    this.args = List.copyOf(args);
  }

  static ReaperWorker start(
      String name, Map<String, String> env, List<String> jvmOptions, List<String> args)
      throws Exception {
    Path dir = Path.of("reaper-it", "target", "blackbox-logs");
    Files.createDirectories(dir);
    Path log = Files.createTempDirectory(dir, "worker-" + name + "-");
    ReaperWorker w = new ReaperWorker(name, log, env, jvmOptions, args);
    w.launch();
    return w;
  }

  /**
   * Starts a new process (generation) of this worker; returns at once, {@link #awaitStarted} waits
   * for it.
   */
  synchronized void restart() throws Exception {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is still running");
    }
    launch();
  }

  private void launch() throws Exception {
    STARTED.add(this);
    int gen = ++generation;
    lastReapNanos = 0;
    reapingSinceNanos = 0;
    consumed.set(0);
    CountDownLatch started = new CountDownLatch(1);
    loopStarted = started;
    Path output = output(gen);
    Process p = JarRunner.start(env, jvmOptions, output, args.toArray(String[]::new));
    process = p;
    Thread t = new Thread(() -> pump(p, output, gen, started), "worker-" + name + "-" + gen);
    t.setDaemon(true);
    t.start();
    pump = t;
  }

  private Path output(int gen) {
    return log.resolve("generation-" + gen + ".log");
  }

  /**
   * Follows the process's output file line by line until the process has exited and the file is
   * read to its end.
   */
  private void pump(Process p, Path output, int gen, CountDownLatch started) {
    try (InputStream in = Files.newInputStream(output)) {
      byte[] buf = new byte[64 * 1024];
      ByteArrayOutputStream partial = new ByteArrayOutputStream();
      while (true) {
        boolean exited =
            !p.isAlive(); // before the read: a read after exit sees everything the process wrote
        int n = in.read(buf);
        if (n > 0) {
          int from = 0;
          for (int i = 0; i < n; i++) {
            if (buf[i] == '\n') {
              partial.write(buf, from, i - from);
              line(partial.toString(StandardCharsets.UTF_8), gen, started);
              partial.reset();
              from = i + 1;
            }
          }
          partial.write(buf, from, n - from);
          consumed.addAndGet(n); // after its complete lines are parsed
        } else if (exited) {
          break;
        } else {
          Thread.sleep(10);
        }
      }
      if (partial.size() > 0) {
        line(partial.toString(StandardCharsets.UTF_8), gen, started);
      }
    } catch (IOException | RuntimeException e) {
      System.out.println("worker " + name + ": following its output " + output + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void line(String line, int gen, CountDownLatch started) {
    if (line.contains(REAPED)) {
      long now = System.nanoTime();
      if (lastReapNanos == 0 || now - lastReapNanos > STREAK_GAP_NANOS) {
        reapingSinceNanos = now;
      }
      lastReapNanos = now;
      reapedLines.incrementAndGet();
      if (markActive && claimAfterMark) {
        reapedAfterMarkClaim.incrementAndGet();
      }
    } else if (line.contains(BATCH)) {
      Matcher m = COUNT.matcher(line);
      if (markActive && m.find() && Integer.parseInt(m.group(1)) > 0 && afterMark(line)) {
        claimAfterMark = true;
      }
    } else if (line.contains(CYCLE)) {
      if (markActive && !line.contains("\"message\":\"cycle started\"") && afterMark(line)) {
        markActive = false; // the cycle that was in flight at the mark has ended
      }
      CycleEvent e = parse(gen, line);
      if (e != null) {
        cycles.add(e);
      }
    } else if (line.contains(ITEM_FAILED)) {
      itemFailedLines.incrementAndGet();
    } else if (line.contains(LOOP_STARTED)) {
      started.countDown();
    }
  }

  /**
   * The cycle event a line of the worker's log ends, or null. A cycle that finds the run lock held
   * logs "cycle skipped: run lock held by another runner" and then its "cycle completed" line
   * ({@code lockAcquired:false}); only the latter is its event, so that a skipped cycle counts
   * once, like any other.
   */
  static @Nullable CycleEvent parse(int gen, String line) {
    Instant at = Instant.parse(JsonPath.read(line, "$['@timestamp']"));
    if (line.contains("\"message\":\"cycle completed\"")) {
      long closed =
          num(line, "emptyTimeout") + num(line, "provisionFailed") + num(line, "staleTimeout");
      return new CycleEvent(
          gen,
          at,
          "completed",
          Boolean.TRUE.equals(JsonPath.read(line, "$.lockAcquired")),
          num(line, "durationMs"),
          closed,
          line);
    }
    if (line.contains("\"message\":\"cycle failed")) {
      return new CycleEvent(gen, at, "failed", false, 0, 0, line);
    }
    return null;
  }

  private static long num(String line, String field) {
    Object v = JsonPath.read(line, "$." + field);
    return ((Number) v).longValue();
  }

  /**
   * Waits until the current process has started its reaper loop; fails with the log's tail if it
   * died.
   */
  void awaitStarted(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!loopStarted.await(100, TimeUnit.MILLISECONDS)) {
      if (!process.isAlive()) {
        throw new AssertionError(
            name
                + " exited with "
                + process.exitValue()
                + " before its loop started:\n"
                + tail(40));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            name + " did not start its loop within " + timeout + ":\n" + tail(40));
      }
    }
  }

  boolean started() {
    return loopStarted.getCount() == 0;
  }

  /** SIGKILL (kill -9) and wait until the process is gone and all it printed has been read. */
  void kill() throws InterruptedException {
    Process p = process;
    p.destroyForcibly();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(name + " survived SIGKILL");
    }
    pump.join(10_000);
  }

  /** Sends a signal (STOP, CONT, …) with kill(1): Process offers only TERM and KILL. */
  void signal(String signal) throws Exception {
    Process k =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: " + out);
    }
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  int generation() {
    return generation;
  }

  /** True while "conference reaped" lines arrived within {@code within}. */
  boolean reapingWithin(Duration within) {
    long last = lastReapNanos;
    return alive() && last != 0 && System.nanoTime() - last <= within.toNanos();
  }

  /**
   * System.nanoTime() of the first "conference reaped" line of the current reaping streak (0: none
   * yet).
   */
  long reapingSinceNanos() {
    return reapingSinceNanos;
  }

  /**
   * Marks the instant {@code at} (call it while the process is frozen, before it resumes). Until
   * the cycle in flight ends, {@link #closedAfterMark} counts the rows it reports closed in batches
   * it claimed after the mark. Which side of the mark a line is on is decided by its own timestamp,
   * not by when this test read it: a line the worker made before the freeze but wrote (its log is
   * queued) or we read (a loaded machine) after it is not "after the mark".
   */
  void mark(Instant at) {
    claimAfterMark = false;
    reapedAfterMarkClaim.set(0);
    markAt = at;
    markActive = true;
  }

  private boolean afterMark(String line) {
    Instant at = Instant.parse(JsonPath.read(line, "$['@timestamp']"));
    return !at.isBefore(markAt);
  }

  /**
   * Waits until everything the current process has written so far is read and parsed: call it while
   * the process is frozen (SIGSTOP), before {@link #mark}, so that no line printed before the
   * freeze counts as after it, however slowly the pump runs on a loaded machine.
   */
  void awaitOutputRead(Duration timeout) throws Exception {
    Path output = output(generation);
    Await.until(
        name + "'s output read to its end",
        timeout,
        () -> {
          try {
            return consumed.get() >= Files.size(output);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** Rows the in-flight cycle closed in batches it claimed after {@link #mark}. */
  long closedAfterMark() {
    return reapedAfterMarkClaim.get();
  }

  List<CycleEvent> cycles() {
    return new ArrayList<>(cycles);
  }

  /**
   * Cycles of this worker that began after {@code from} and ran to their end (with the lock or
   * skipped for it): what a wait for "n more cycles" of this worker counts.
   */
  long completedSince(Instant from) {
    return cycles.stream().filter(c -> c.completed() && c.startedAt().isAfter(from)).count();
  }

  Optional<CycleEvent> firstCycle(Predicate<CycleEvent> p) {
    return cycles.stream().filter(p).findFirst();
  }

  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(output(generation), StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /**
   * Stops the process: SIGCONT (in case it is frozen), SIGTERM, and SIGKILL if it is not gone
   * within 20 s.
   */
  @Override
  public void close() {
    Process p = process;
    try {
      if (p != null && p.isAlive()) {
        try {
          signal("CONT");
        } catch (Exception ignored) {
          // It may have exited meanwhile.
        }
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          System.out.println("worker " + name + " ignored SIGTERM for 20 s; SIGKILL");
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
      }
      if (pump != null) {
        pump.join(10_000);
      }
    } catch (InterruptedException e) {
      killQuietly();
      Thread.currentThread().interrupt();
    } finally {
      if (p == null || !p.isAlive()) {
        STARTED.remove(this);
      }
    }
  }

  private void killQuietly() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
    }
  }
}
