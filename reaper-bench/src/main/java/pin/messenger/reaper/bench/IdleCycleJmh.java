package pin.messenger.reaper.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import pin.messenger.reaper.core.Cancellation;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * The idle cycle timed by JMH: the reaper's cycle (run lock and three phases, default options) and
 * the three raw claims, on a database the caller prepared (nothing due), milliseconds per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@SuppressWarnings("NullAway.Init") // JMH sets the parameter and calls open() before any benchmark
public class IdleCycleJmh {
  /** The database's JDBC URL, credentials included. */
  @Param("")
  public String url;

  private HikariDataSource dataSource;
  private ConferenceRoomReaper reaper;
  private Floors floors;
  private final ConferenceRoomReaperOptions options = ConferenceRoomReaperOptions.defaults();

  @Setup
  public void open() {
    BenchReport.quietLogging();
    dataSource = BenchData.pool(url, 2);
    reaper = BenchReport.reaper(dataSource, options);
    floors = new Floors(dataSource);
  }

  @TearDown
  public void close() {
    dataSource.close();
  }

  @Benchmark
  public int reaperCycle() {
    int reaped = reaper.runOnce(Instant.now(), Cancellation.NONE).reaped();
    if (reaped != 0) {
      throw new IllegalStateException("an idle cycle reaped " + reaped + " on " + url);
    }
    return reaped;
  }

  @Benchmark
  public void threeRawClaims() throws Exception {
    Instant now = Instant.now();
    floors.rawClaims(
        Phase.EMPTY_ROOM.cutoff(now, options),
        Phase.PROVISION_TIMEOUT.cutoff(now, options),
        Phase.STALE_LIVE.cutoff(now, options));
  }

  /**
   * 1 when JMH can start its forked JVMs with this class path (the benchmark's jar unpacked, as
   * {@code bin/reaper bench} runs it), else 0: in this JVM.
   */
  static int forks() {
    return ClassLoader.getSystemClassLoader().getResource("org/openjdk/jmh/runner/ForkedMain.class")
            == null
        ? 0
        : 1;
  }

  /** One JMH figure: the mean and its 99.9 % confidence half-width, ms per call. */
  record Score(double ms, double error) {}

  /**
   * Runs the named benchmarks ({@code reaperCycle}, {@code threeRawClaims}) on each URL; returns
   * the scores by benchmark, then by URL. {@code forks} 0 runs them in this JVM (the tests).
   */
  static Map<String, Map<String, Score>> run(
      List<String> benchmarks, List<String> urls, int iterations, int forks) throws Exception {
    OptionsBuilder options = new OptionsBuilder();
    for (String b : benchmarks) {
      options.include(Pattern.quote(IdleCycleJmh.class.getName() + "." + b) + "$");
    }
    Collection<RunResult> results =
        new Runner(
                options
                    .param("url", urls.toArray(String[]::new))
                    .warmupIterations(iterations)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(iterations)
                    .measurementTime(TimeValue.seconds(1))
                    .forks(forks)
                    .jvmArgs(WorkerProcess.JVM_FLAGS.toArray(String[]::new))
                    .shouldFailOnError(true)
                    .build())
            .run();
    Map<String, Map<String, Score>> scores = new LinkedHashMap<>();
    for (RunResult r : results) {
      String label = r.getParams().getBenchmark();
      String benchmark = label.substring(label.lastIndexOf('.') + 1);
      scores
          .computeIfAbsent(benchmark, k -> new LinkedHashMap<>())
          .put(
              r.getParams().getParam("url"),
              new Score(r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()));
    }
    return scores;
  }
}
