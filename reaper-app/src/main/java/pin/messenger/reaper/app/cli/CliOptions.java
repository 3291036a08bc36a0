package pin.messenger.reaper.app.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.store.OperatorAction;

/**
 * The typed values of the command line, each with the refusal that names what is wrong (a usage
 * error: exit 2, nothing started). picocli calls a converter while it parses, so a bad value is
 * refused before a command runs.
 */
public final class CliOptions {
  private CliOptions() {}

  /** A duration as typed (for the audit row) and as read. */
  public record TypedDuration(String text, Duration duration) {}

  /** {@code pause --for}: a positive duration ({@link DurationOption}). */
  public static final class PauseFor implements ITypeConverter<TypedDuration> {
    @Override
    public TypedDuration convert(String text) {
      return new TypedDuration(text, DurationOption.parse("for", text));
    }
  }

  /**
   * {@code --since}: an instant or a duration ago, against the wall clock when the command line is
   * read.
   */
  static final class Since implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String text) {
      return DurationOption.since("since", text, Instant.now());
    }
  }

  /** {@code end --started-at}: an ISO-8601 instant. */
  public static final class StartedAt implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String text) {
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        throw new ReaperCli.UsageException(
            "--started-at '" + text + "' is not an instant (2026-12-02T10:00:00Z)");
      }
    }
  }

  /** {@code --phase P}: one phase, by its label; without it, every phase. */
  public static final class PhaseOption {
    @Option(
        names = "--phase",
        paramLabel = "P",
        description = "one phase: empty-room, provision-timeout or stale-live (default: all)",
        converter = PhaseLabel.class)
    public @Nullable String phase;
  }

  /** {@code --since T}: an instant or a duration ago; without it, any time. */
  public static final class SinceOption {
    @Option(
        names = "--since",
        paramLabel = "T",
        description = "only since T: an instant or a duration ago (2h)",
        converter = Since.class)
    public @Nullable Instant since;
  }

  /** A command's one positional argument, a conference id (optional for {@code retry}). */
  public static final class Conference {
    @Parameters(
        arity = "0..1",
        paramLabel = "<id>",
        description = "the conference id (a UUID)",
        converter = ConferenceId.class)
    public @Nullable UUID id;

    /** The id, else a usage error: {@code <command> needs a conference id}. */
    public UUID required(String command) {
      UUID given = id;
      if (given == null) {
        throw new ReaperCli.UsageException(command + " needs a conference id");
      }
      return given;
    }
  }

  /** A conference id: a UUID. */
  static final class ConferenceId implements ITypeConverter<UUID> {
    @Override
    public UUID convert(String text) {
      try {
        return UUID.fromString(text);
      } catch (IllegalArgumentException e) {
        throw new ReaperCli.UsageException("'" + text + "' is not a conference id (a UUID)");
      }
    }
  }

  /** {@code --phase}: one of the phases' labels. */
  static final class PhaseLabel implements ITypeConverter<String> {
    @Override
    public String convert(String text) {
      for (Phase p : Phase.values()) {
        if (p.label().equals(text)) {
          return text;
        }
      }
      throw new ReaperCli.UsageException(
          "unknown phase '"
              + text
              + "' (phases: "
              + Arrays.stream(Phase.values()).map(Phase::label).collect(Collectors.joining(", "))
              + ")");
    }
  }

  /** {@code audit --limit}: 1 to 1000. */
  public static final class Limit implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
      int limit;
      try {
        limit = Integer.parseInt(text);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > 1000) {
        throw new ReaperCli.UsageException(
            "--limit '" + text + "' must be a number from 1 to 1000");
      }
      return limit;
    }
  }

  /** {@code audit --action}: an action the trail records; a typo would read as "nothing". */
  public static final class Action implements ITypeConverter<OperatorAction> {
    @Override
    public OperatorAction convert(String text) {
      if (text.isBlank()) {
        throw new ReaperCli.UsageException("--action needs a value");
      }
      OperatorAction action = OperatorAction.byLabel(text);
      if (action == null) {
        throw new ReaperCli.UsageException(
            "unknown action '" + text + "' (one of " + OperatorAction.labels() + ")");
      }
      return action;
    }
  }

  /** {@code audit --actor}: a name, not blank. */
  public static final class ActorName implements ITypeConverter<String> {
    @Override
    public String convert(String text) {
      if (text.isBlank()) {
        throw new ReaperCli.UsageException("--actor needs a value");
      }
      return text;
    }
  }
}
