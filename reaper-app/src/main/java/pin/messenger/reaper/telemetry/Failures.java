package pin.messenger.reaper.telemetry;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;

/**
 * The message a person acts on, out of a failure's cause chain: what a command's {@code {"error":
 * …}} document carries. The whole chain goes to the log, once, with the same message.
 *
 * <p>Which message: the outermost of our own exceptions in the chain (an invalid option, a store
 * failure: their messages are written for the operator and already carry what lies under them);
 * else the outermost one that is not a mere wrapper, i.e. neither a Spring bean-creation wrapper
 * nor an exception whose message only repeats its cause's (a driver's "connection refused" rather
 * than "Error creating bean with name 'dataSource' …"); else the failure's own message.
 */
public final class Failures {
  private static final Logger log = LoggerFactory.getLogger(Failures.class);
  private static final String OURS = "pin.messenger.reaper.";

  private Failures() {}

  /** The message a person acts on (see the class comment). */
  public static String message(Throwable failure) {
    List<Throwable> chain = chain(failure);
    for (Throwable t : chain) {
      if (t.getClass().getName().startsWith(OURS) && hasMessage(t)) {
        return text(t);
      }
    }
    for (Throwable t : chain) {
      if (hasMessage(t) && !wrapper(t)) {
        return text(t);
      }
    }
    return hasMessage(failure) ? text(failure) : failure.toString();
  }

  /**
   * Logs {@code <command> failed} with the whole chain and returns the message a person acts on.
   */
  public static String report(String command, Throwable failure) {
    String message = message(failure);
    log.atError()
        .addKeyValue("command", command)
        .setCause(failure)
        .log(command + " failed: " + message);
    return message;
  }

  /** The failure and its causes, outermost first (a cause cycle ends the walk). */
  private static List<Throwable> chain(Throwable failure) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private static boolean wrapper(Throwable t) {
    Throwable cause = t.getCause();
    if (cause == null) {
      return false;
    }
    if (t instanceof BeansException) {
      return true;
    }
    String own = text(t);
    String under = cause.getMessage();
    return own.equals(cause.toString()) || (under != null && own.contains(under));
  }

  private static boolean hasMessage(Throwable t) {
    String m = t.getMessage();
    return m != null && !m.isBlank();
  }

  private static String text(Throwable t) {
    String m = t.getMessage();
    return m == null ? "" : m;
  }
}
