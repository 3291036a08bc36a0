package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The pauses an operator set ({@code bin/reaper pause}), as a cycle read them: every runner obeys
 * them at its next cycle, and a batch's claim reads them again (a pause set mid-cycle stops the
 * phase at its next batch). A pause covers one phase or, with scope {@link #ALL}, the whole reaper;
 * one with an {@code until} ends by itself once {@code asOf} reaches it.
 *
 * @param pauses every stored pause, expired ones included (the cycle decides with its own asOf)
 */
public record PauseState(List<Pause> pauses) {

  /** The scope of a pause of the whole reaper (every phase). */
  public static final String ALL = "all";

  /** No pause stored. */
  public static final PauseState NONE = new PauseState(List.of());

  public PauseState {
    pauses = List.copyOf(pauses);
  }

  /**
   * One stored pause.
   *
   * @param scope {@link #ALL} or a phase's {@link Phase#label()}
   * @param until when it ends by itself, or null: until {@code bin/reaper resume}
   */
  public record Pause(
      String scope,
      String reason,
      String actor,
      @Nullable Instant pausedAt,
      @Nullable Instant until) {
    /** True when it still pauses at {@code asOf}. */
    public boolean activeAt(Instant asOf) {
      return until == null || until.isAfter(asOf);
    }
  }

  /**
   * The pause that holds {@code phase} back at {@code asOf}: the phase's own, else a pause of the
   * whole reaper; empty when the phase runs.
   */
  public Optional<Pause> pausing(Phase phase, Instant asOf) {
    Optional<Pause> own =
        pauses.stream()
            .filter(p -> p.scope().equals(phase.label()) && p.activeAt(asOf))
            .findFirst();
    return own.isPresent()
        ? own
        : pauses.stream().filter(p -> p.scope().equals(ALL) && p.activeAt(asOf)).findFirst();
  }

  /** The phases paused at {@code asOf}. */
  public Set<Phase> pausedAt(Instant asOf) {
    Set<Phase> paused = EnumSet.noneOf(Phase.class);
    for (Phase phase : Phase.values()) {
      if (pausing(phase, asOf).isPresent()) {
        paused.add(phase);
      }
    }
    return paused;
  }

  /** Pauses still in force at {@code asOf}. */
  public List<Pause> activeAt(Instant asOf) {
    return pauses.stream().filter(p -> p.activeAt(asOf)).toList();
  }

  /** True for {@link #ALL} and each phase's label: the scopes a pause may have. */
  public static boolean isScope(String scope) {
    if (ALL.equals(scope)) {
      return true;
    }
    for (Phase phase : Phase.values()) {
      if (phase.label().equals(scope)) {
        return true;
      }
    }
    return false;
  }
}
