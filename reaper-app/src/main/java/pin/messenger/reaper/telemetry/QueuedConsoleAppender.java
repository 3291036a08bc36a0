package pin.messenger.reaper.telemetry;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.encoder.Encoder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The worker's console appender: the logging thread hands each event to a bounded queue, one writer
 * thread encodes what has queued and writes it to {@code System.out} in one write, then flushes. A
 * drain's thousand {@code conference reaped} lines a batch thus cost the cycle's thread a queue
 * insertion each instead of an encoding and a {@code write(2)} each (docs/benchmarks.md, "Where the
 * drain time goes").
 *
 * <p>No line is dropped: when the queue is full the logging thread waits for room (the cycle slows
 * down to the speed of stdout, as it did with the synchronous appender); an event that cannot be
 * queued (the thread is interrupted, or the writer has stopped) is written by the logging thread
 * itself. {@link #flush()} waits until everything queued so far is written: {@code run-once} calls
 * it before it prints its JSON document, so the document stays the last line. Stopping (Spring
 * Boot's logging shutdown, on SIGTERM or exit) and a JVM shutdown hook of its own both write what
 * is still queued before the process ends; neither has a time limit (a stdout that never drains is
 * ended by the container's grace period, as it would block a synchronous appender too).
 *
 * <p>The stream ({@code stdout} by default, {@code stderr} for a command whose stdout is its
 * answer) is looked up at each write, not kept, so that a test that sets {@code System.out} sees
 * the lines.
 */
public final class QueuedConsoleAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {
  /** Queue length default: a batch of 1000 reaped rooms fits without the cycle waiting. */
  public static final int DEFAULT_QUEUE_SIZE = 8192;

  private static final int MAX_CHUNK = 1024;

  private @Nullable Encoder<ILoggingEvent> encoder;
  private int queueSize = DEFAULT_QUEUE_SIZE;
  private String stream = "stdout";
  private boolean toStderr;
  private @Nullable BlockingQueue<ILoggingEvent> queue;
  private @Nullable Thread writer;
  private @Nullable Thread shutdownHook;
  private volatile boolean closing;
  // Events accepted (queued or written directly) and events written, for flush().
  private final Object progress = new Object();
  private long accepted;
  private long written;

  public void setEncoder(Encoder<ILoggingEvent> encoder) {
    this.encoder = encoder;
  }

  /** The queue's length (events); at least 1. */
  public void setQueueSize(int queueSize) {
    this.queueSize = queueSize;
  }

  /** {@code stdout} (the default) or {@code stderr}. */
  public void setStream(String stream) {
    this.stream = stream;
  }

  @Override
  public void start() {
    if (encoder == null) {
      addError("no encoder set for the appender named [" + name + "]");
      return;
    }
    if (!stream.equals("stdout") && !stream.equals("stderr")) {
      addError("stream must be stdout or stderr, was " + stream);
      return;
    }
    toStderr = stream.equals("stderr");
    if (queueSize < 1) {
      addError("queueSize must be at least 1, was " + queueSize);
      return;
    }
    queue = new ArrayBlockingQueue<>(queueSize);
    closing = false;
    Thread w = new Thread(this::writeLoop, "log-writer");
    w.setDaemon(true);
    writer = w;
    Thread hook = new Thread(this::flush, "log-writer-flush");
    shutdownHook = hook;
    try {
      Runtime.getRuntime().addShutdownHook(hook);
    } catch (IllegalStateException alreadyShuttingDown) {
      shutdownHook = null;
    }
    super.start();
    w.start();
  }

  @Override
  protected void append(ILoggingEvent event) {
    // Message, thread name, MDC and key-value pairs are fixed now, on the logging thread.
    event.prepareForDeferredProcessing();
    BlockingQueue<ILoggingEvent> q = queue;
    synchronized (progress) {
      accepted++;
    }
    if (q != null && !closing) {
      try {
        // A full queue makes the logging thread wait (the cycle slows to stdout's speed); a writer
        // that has died or stopped meanwhile cannot make room, so the line is written here.
        while (!q.offer(event, 100, TimeUnit.MILLISECONDS)) {
          if (closing || !writerAlive()) {
            writeNow(List.of(event));
            return;
          }
        }
        if (closing) {
          // Queued while stop() was draining: write it rather than leave it behind.
          drainHere();
        }
        return;
      } catch (InterruptedException e) {
        // Keep the interrupt for the caller; the line is written here instead of being lost.
        Thread.currentThread().interrupt();
      }
    }
    writeNow(List.of(event));
  }

  /**
   * Waits until every line logged so far through any of these appenders is written: call it before
   * printing a document on stdout, so no log line lands after (or inside) it.
   */
  public static void flushAll() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    for (Logger logger : context.getLoggerList()) {
      for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext(); ) {
        if (it.next() instanceof QueuedConsoleAppender queued) {
          queued.flush();
        }
      }
    }
  }

  /** Waits until every event appended before this call is written to stdout. */
  public void flush() {
    long target;
    synchronized (progress) {
      target = accepted;
      while (written < target && writerAlive()) {
        try {
          progress.wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    if (!writerAlive()) {
      drainHere();
    }
  }

  private boolean writerAlive() {
    Thread w = writer;
    return w != null && w.isAlive();
  }

  @Override
  public void stop() {
    if (!isStarted()) {
      return;
    }
    closing = true;
    Thread w = writer;
    if (w != null) {
      w.interrupt();
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    drainHere();
    Thread hook = shutdownHook;
    if (hook != null && Thread.currentThread() != hook) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException alreadyShuttingDown) {
        // The hook runs (or ran) anyway; it only flushes.
      }
    }
    super.stop();
  }

  private void writeLoop() {
    BlockingQueue<ILoggingEvent> q = queue;
    if (q == null) {
      return;
    }
    List<ILoggingEvent> chunk = new ArrayList<>(MAX_CHUNK);
    while (!closing) {
      try {
        chunk.add(q.take());
      } catch (InterruptedException e) {
        break;
      }
      q.drainTo(chunk, MAX_CHUNK - 1);
      writeNow(chunk);
      chunk.clear();
    }
  }

  /** Writes what is still queued, on the calling thread (stop, or a writer that has died). */
  private void drainHere() {
    BlockingQueue<ILoggingEvent> q = queue;
    if (q == null) {
      return;
    }
    List<ILoggingEvent> rest = new ArrayList<>();
    while (q.drainTo(rest, MAX_CHUNK) > 0) {
      writeNow(rest);
      rest.clear();
    }
  }

  private void writeNow(List<ILoggingEvent> events) {
    Encoder<ILoggingEvent> e = encoder;
    if (e == null) {
      return;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(events.size() * 512);
    for (ILoggingEvent event : events) {
      try {
        byte[] line = e.encode(event);
        bytes.write(line, 0, line.length);
      } catch (RuntimeException failed) {
        // One event that cannot be encoded must not cost the others their lines.
        addError("log event not encoded: " + event.getFormattedMessage(), failed);
      }
    }
    byte[] chunk = bytes.toByteArray();
    PrintStream out = toStderr ? System.err : System.out;
    synchronized (this) {
      out.write(chunk, 0, chunk.length);
      out.flush();
    }
    synchronized (progress) {
      written += events.size();
      progress.notifyAll();
    }
  }
}
