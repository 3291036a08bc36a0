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

  /** The reaper as the worker wires it, without observers or listeners. */
  static ConferenceRoomReaper reaper(DataSource database, ConferenceRoomReaperOptions options) {
    return new ConferenceRoomReaper(
        new PostgresReaperStore(database), options, ReaperObserver.NONE, List.of());
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
