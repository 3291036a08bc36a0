package pin.messenger.reaper.core;

/** The outcome of deciding one claimed conference at one moment. */
public sealed interface Decision {

  /** Close the conference with this transition. */
  record Close(Transition transition) implements Decision {}

  /**
   * Leave the conference alone without complaint: it is not (or no longer) due for this phase.
   * Counted as a lost race, never as an error.
   */
  record Skip(String reason) implements Decision {}

  /**
   * The row cannot be closed as it stands (impossible data). It is excluded from the batch, logged
   * at ERROR, counted, and its error kept on the row; it stays for a later cycle.
   */
  record Poison(String reason) implements Decision {}
}
