package pin.messenger.reaper.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The pure decision behind {@code bin/reaper end <id>}: close a conference now exactly as the
 * reaper would. The phase is the first one whose {@link ReaperDecision#decide} does not skip the
 * row (the order the cycle runs them), with the poison backoff ignored (the operator acts now, the
 * backoff only spaces the reaper's own attempts). The transition is that decision's, so the status,
 * end reason, {@code ended_at}, duration, event, realtime row and recorder stops are the phase's
 * own — one definition, no second version of the rule.
 *
 * <p>A row the reaper rejects because its conference-ended event cannot be built (no {@code
 * started_at}, one in the future, no {@code deal_id}) needs the operator's explicit {@link Choice}:
 * a start to assert ({@code --started-at}), which the event and the duration then use, or a close
 * without the event ({@code --without-event}). Any other rejection is refused with its reason.
 */
public final class ManualEnd {
  private ManualEnd() {}

  /**
   * What the operator decided for a meeting whose event cannot be built from the row.
   *
   * @param startedAt the start to assert (for the event and {@code duration_seconds}; the row's
   *     {@code started_at} is not written), or null
   * @param withoutEvent close without the conference-ended event and without a duration
   */
  public record Choice(@Nullable Instant startedAt, boolean withoutEvent) {
    public static final Choice NONE = new Choice(null, false);

    public Choice {
      if (startedAt != null && withoutEvent) {
        throw new IllegalArgumentException("choose either a start or no event, not both");
      }
    }
  }

  /** The outcome of {@link #decide}. */
  public sealed interface Result {
    /** Close with the phase's transition. */
    record End(Phase phase, Transition transition) implements Result {}

    /** The reaper would not close this row now, or cannot at all: nothing to do this way. */
    record Refused(String reason) implements Result {}

    /** The phase's close needs a choice only the operator can make ({@link Choice}). */
    record NeedsChoice(Phase phase, String reason) implements Result {}
  }

  public static Result decide(
      ConferenceSession row, Instant asOf, ConferenceRoomReaperOptions options, Choice choice) {
    if (isTerminal(row.status())) {
      return new Result.Refused("it is already " + row.status() + ": nothing to end");
    }
    Instant rowStart = row.startedAt();
    boolean startUnusable = rowStart == null || rowStart.isAfter(asOf);
    if (choice.startedAt() != null) {
      if (!startUnusable) {
        return new Result.Refused(
            "it has started_at "
                + rowStart
                + ": --started-at is only for a meeting whose start is missing or after now");
      }
      if (choice.startedAt().isAfter(asOf)) {
        return new Result.Refused("--started-at " + choice.startedAt() + " is after now " + asOf);
      }
    }
    ConferenceSession s =
        row.withStartedAtAndNoBackoff(choice.startedAt() != null ? choice.startedAt() : rowStart);
    List<String> skipped = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      Decision d = ReaperDecision.decide(phase, s, asOf, options);
      if (d instanceof Decision.Skip skip) {
        skipped.add(phase.label() + ": " + skip.reason());
      } else if (d instanceof Decision.Close close) {
        if (choice.withoutEvent()) {
          return new Result.Refused(
              "the reaper would close it in "
                  + phase.label()
                  + (phase.publishesConferenceEnded() ? " with its conference-ended event" : "")
                  + ": --without-event is only for a meeting whose event cannot be built");
        }
        return new Result.End(phase, close.transition());
      } else if (d instanceof Decision.Poison poison) {
        return poison(phase, s, asOf, choice, poison.reason());
      }
    }
    return new Result.Refused(
        "no phase would close it now ("
            + String.join("; ", skipped)
            + "); end closes only a room the reaper itself would close");
  }

  private static Result poison(
      Phase phase, ConferenceSession s, Instant asOf, Choice choice, String reason) {
    String blocker = ReaperDecision.eventBlocker(phase, s, asOf);
    if (blocker == null || s.chatId() == null) {
      return new Result.Refused(
          "the reaper rejects it in " + phase.label() + " (" + reason + "): correct the row first");
    }
    if (choice.withoutEvent()) {
      return new Result.End(phase, ReaperDecision.closeWithoutEvent(phase, s, asOf).transition());
    }
    boolean startMissing = s.startedAt() == null || s.startedAt().isAfter(asOf);
    return new Result.NeedsChoice(
        phase,
        blocker
            + ": "
            + phase.label()
            + " closes it "
            + phase.to()
            + "/"
            + phase.endReason()
            + " with a conference-ended event, which needs "
            + (startMissing ? "the meeting's start" : "its deal_id")
            + ". Decide: "
            + (startMissing
                ? "--started-at <instant> (e.g. its created_at "
                    + s.createdAt()
                    + "): the event and duration_seconds use it; or "
                : "")
            + "--without-event: closed with no event and no duration_seconds (the realtime row"
            + " and recorder stops are still written)");
  }

  private static boolean isTerminal(String status) {
    for (ConferenceStatus s : ConferenceStatus.values()) {
      if (s.name().equals(status)) {
        return s.isTerminal();
      }
    }
    return false;
  }
}
