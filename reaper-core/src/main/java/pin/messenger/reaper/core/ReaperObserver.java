package pin.messenger.reaper.core;

/**
 * Port for metrics and traces. Every method has an empty default so an observer implements what it
 * needs; the cycle calls them synchronously, so they must be cheap and must not throw.
 */
public interface ReaperObserver {

  ReaperObserver NONE = new ReaperObserver() {};

  /** One observer that forwards to each of {@code observers} in order. */
  static ReaperObserver compose(java.util.List<? extends ReaperObserver> observers) {
    java.util.List<ReaperObserver> all = java.util.List.copyOf(observers);
    if (all.size() == 1) {
      return all.get(0);
    }
    return new ReaperObserver() {
      @Override
      public void cycleStarted(String jobRunId, java.time.Instant asOf) {
        all.forEach(o -> o.cycleStarted(jobRunId, asOf));
      }

      @Override
      public void clockRead(ClockReading reading) {
        all.forEach(o -> o.clockRead(reading));
      }

      @Override
      public void cycleCompleted(CycleResult result) {
        all.forEach(o -> o.cycleCompleted(result));
      }

      @Override
      public void cycleFailed(String jobRunId, Throwable error) {
        all.forEach(o -> o.cycleFailed(jobRunId, error));
      }

      @Override
      public void cycleCancelled(String jobRunId) {
        all.forEach(o -> o.cycleCancelled(jobRunId));
      }

      @Override
      public void pausesRead(String jobRunId, java.util.Set<Phase> paused) {
        all.forEach(o -> o.pausesRead(jobRunId, paused));
      }

      @Override
      public void batchCommitted(Phase phase, BatchOutcome outcome) {
        all.forEach(o -> o.batchCommitted(phase, outcome));
      }

      @Override
      public void conferenceReaped(String jobRunId, Transition transition) {
        all.forEach(o -> o.conferenceReaped(jobRunId, transition));
      }

      @Override
      public void itemFailed(
          String jobRunId, Phase phase, java.util.UUID conferenceId, String error) {
        all.forEach(o -> o.itemFailed(jobRunId, phase, conferenceId, error));
      }
    };
  }

  /** A cycle starts (before the run lock is tried). */
  default void cycleStarted(String jobRunId, java.time.Instant asOf) {}

  /**
   * The database's clock was read at the start of a cycle (every cycle, before the run lock, in
   * both clock modes): the skew between the worker and the database.
   */
  default void clockRead(ClockReading reading) {}

  /** A cycle finished (also when the lock was held). */
  default void cycleCompleted(CycleResult result) {}

  /** A cycle failed on infrastructure; its current batch was rolled back. */
  default void cycleFailed(String jobRunId, Throwable error) {}

  /** A cycle stopped by shutdown; its open batch was rolled back (not an error). */
  default void cycleCancelled(String jobRunId) {}

  /**
   * The phases operators paused, as this cycle read them right after its run-lock attempt (empty:
   * none); every cycle that reached the database reports it, also when the lock was held elsewhere.
   */
  default void pausesRead(String jobRunId, java.util.Set<Phase> paused) {}

  /** A phase's batch committed. */
  default void batchCommitted(Phase phase, BatchOutcome outcome) {}

  /** A conference was closed (after commit). */
  default void conferenceReaped(String jobRunId, Transition transition) {}

  /** A poison row was excluded from its batch. */
  default void itemFailed(
      String jobRunId, Phase phase, java.util.UUID conferenceId, String error) {}
}
