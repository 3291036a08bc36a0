package pin.messenger.reaper.app.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumSet;
import java.util.Set;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperObserver;

/**
 * {@code messenger_conf_reaper_paused{phase}}: 1 while operators have paused the phase ({@code
 * bin/reaper pause}), as this process's last cycle read it (every runner reads the pauses each
 * cycle, the one holding the run lock and the standbys alike). Registered at start-up at 0.
 */
public final class PauseMeters implements ReaperObserver {
  public static final String PAUSED = "messenger.conf.reaper.paused";

  private volatile Set<Phase> paused = EnumSet.noneOf(Phase.class);

  public PauseMeters(MeterRegistry registry) {
    for (Phase phase : Phase.values()) {
      Gauge.builder(PAUSED, () -> paused.contains(phase) ? 1 : 0)
          .description(
              "1 while an operator has paused the phase (bin/reaper pause), as the last cycle read"
                  + " it")
          .tag("phase", phase.label())
          .register(registry);
    }
  }

  @Override
  public void pausesRead(String jobRunId, Set<Phase> paused) {
    this.paused = paused.isEmpty() ? EnumSet.noneOf(Phase.class) : EnumSet.copyOf(paused);
  }
}
