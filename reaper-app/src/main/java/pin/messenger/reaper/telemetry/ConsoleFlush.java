package pin.messenger.reaper.telemetry;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Iterator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * Waits until every log line queued so far is written: a command calls {@link #flushAll()} before
 * it prints its JSON document, so the document stays the last stdout line. Logback's {@code
 * AsyncAppender} writes its queue in order but has no flush, so a marker event goes through each
 * one's queue; this filter, first on the appender the queue feeds ({@code logback-spring.xml}),
 * lets the caller go when the marker reaches it (every line queued before it is written by then)
 * and never writes the marker itself.
 */
public final class ConsoleFlush extends Filter<ILoggingEvent> {

  /** The marker: the latch its caller waits on. */
  private static final class Marker extends LoggingEvent {
    final CountDownLatch written = new CountDownLatch(1);

    Marker(Logger logger) {
      super(ConsoleFlush.class.getName(), logger, Level.ERROR, "console flush", null, null);
    }
  }

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (event instanceof Marker marker) {
      marker.written.countDown();
      return FilterReply.DENY;
    }
    return FilterReply.NEUTRAL;
  }

  /**
   * Waits until every line logged before this call through an {@link AsyncAppender} whose target
   * carries this filter is written (no time limit while the appender runs: a blocked stdout blocks
   * the document as well). Other asynchronous appenders (a deployment's own Logback configuration)
   * are left alone: nothing on their side would release the wait.
   */
  public static void flushAll() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      flushAll(context);
    }
  }

  /** {@link #flushAll()} for the appenders of {@code context}. */
  public static void flushAll(LoggerContext context) {
    for (Logger logger : context.getLoggerList()) {
      for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext(); ) {
        if (it.next() instanceof AsyncAppender async && releasesMarkers(async)) {
          flush(async, logger);
        }
      }
    }
  }

  /** Whether an appender {@code async} writes to carries a {@code ConsoleFlush} filter. */
  private static boolean releasesMarkers(AsyncAppender async) {
    for (Iterator<Appender<ILoggingEvent>> it = async.iteratorForAppenders(); it.hasNext(); ) {
      if (it.next().getCopyOfAttachedFiltersList().stream()
          .anyMatch(f -> f instanceof ConsoleFlush)) {
        return true;
      }
    }
    return false;
  }

  private static void flush(AsyncAppender async, Logger logger) {
    Marker marker = new Marker(logger);
    async.doAppend(marker);
    try {
      while (!marker.written.await(100, TimeUnit.MILLISECONDS)) {
        if (!async.isStarted()) {
          return; // stopping writes what is queued; nothing more to wait for here
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
