package pin.messenger.reaper.delivery;

import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What a step asks {@link LeasedRows#settle} to write after the send (a delivered row, a failed
 * one, one given back), and what the write changed.
 */
final class LeaseOutcome {

  /** A delivered row; {@code at} is when the other side acknowledged it (null: the step's time). */
  record Delivered(UUID id, @Nullable String note, @Nullable Instant at) {}

  /**
   * A failed row and when it may be tried again; {@code giveUpNow}: give it up whatever its
   * attempts.
   */
  record Failure(UUID id, @Nullable String error, Instant nextAttemptAt, boolean giveUpNow) {}

  /** A row given back untouched. */
  record Released(UUID id, @Nullable String error) {}

  /**
   * What the settle changed. {@code failed} includes {@code gaveUp}; {@code lost} are the rows
   * whose lease another owner holds now (or already finished), which this owner changed nothing on.
   */
  record Settled(
      Set<UUID> delivered,
      Set<UUID> failed,
      Set<UUID> gaveUp,
      Set<UUID> released,
      Map<UUID, SendOutcome.Kind> lost) {}

  private LeaseOutcome() {}
}
