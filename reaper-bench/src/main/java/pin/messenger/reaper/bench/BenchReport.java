package pin.messenger.reaper.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import pin.messenger.reaper.core.ConferenceRoomReaper;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ReaperObserver;
import pin.messenger.reaper.store.PostgresReaperStore;

/**
 * The benchmark's report: each line is printed as it is measured and kept for the summary printed
 * at the end. Also the helpers every section shares.
 */
final class BenchReport {
  private final StringBuilder text = new StringBuilder();

  void line(String s) {
    System.out.println(s);
    text.append(s).append('\n');
  }

  @Override
  public String toString() {
    return text.toString();
  }

  /**
   * Only the figures: the embedded server, the pool and the reaper are chatty at INFO. The
   * in-process sections measure the reaper with its logging off; the shipped ones run the
   * production jar at its default level.
   */
  static void quietLogging() {
    ((ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
  }

  /** The reaper as the worker wires it, without observers or listeners. */
  static ConferenceRoomReaper reaper(DataSource database, ConferenceRoomReaperOptions options) {
    return new ConferenceRoomReaper(
        new PostgresReaperStore(database), options, ReaperObserver.NONE, List.of());
  }

  /** The middle value, or the mean of the two middle values; the list is left as it was. */
  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * {@code a[i] / b[i]} for each round {@code i}: two series measured in the same rounds, each
   * figure against its own round's reference (the machine's load drifts between rounds).
   */
  static List<Double> pairedRatios(List<Double> a, List<Double> b) {
    if (a.size() != b.size()) {
      throw new IllegalArgumentException(
          "paired ratios need as many rounds on each side: " + a.size() + " and " + b.size());
    }
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      ratios.add(a.get(i) / b.get(i));
    }
    return ratios;
  }

  /**
   * A verdict on a target that is a ceiling: {@code met}, or {@code missed by} and the excess
   * formatted by {@code excess}, which receives the excess and then the percentage over target.
   */
  static String atMost(double value, double target, String excess) {
    return value <= target
        ? "met"
        : "missed by " + String.format(excess, value - target, 100 * (value / target - 1));
  }

  /** The rounds' values, each formatted, in the order they were taken: {@code 1,020 · 980}. */
  static String each(List<Double> values, String format) {
    return String.join(" · ", values.stream().map(v -> String.format(format, v)).toList());
  }

  /** Element {@code i} of round {@code round}'s order: the list rotated by one each round. */
  static <T> T rotated(List<T> items, int round, int i) {
    return items.get((i + round) % items.size());
  }
}
