package pin.messenger.reaper.app.config;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import pin.messenger.reaper.core.InvalidOptionsException;

/**
 * Turns invalid options into Spring Boot's start-up failure report: one line per violated property.
 */
public final class InvalidOptionsFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidOptionsException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidOptionsException cause) {
    return new FailureAnalysis(
        "Invalid conference-room-reaper configuration:\n  - "
            + String.join("\n  - ", cause.violations()),
        "Correct the reaper.* properties named above (application properties, --reaper.x=y or REAPER_X env).",
        cause);
  }
}
