package pin.messenger.reaper.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console as {@code logback-spring.xml} sets it up (Logback's AsyncAppender feeding a console
 * appender, {@link ConsoleFlush} first on it) loses no line: not when full, not at flush, not at
 * stop; and a flush waits for what was logged before it.
 */
class ConsoleQueueTest {
  private final PrintStream original = System.out;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private final LoggerContext context = new LoggerContext();
  private AsyncAppender queue;
  private Logger logger;

  @BeforeEach
  void captureStdout() {
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restoreStdout() {
    System.setOut(original);
    context.stop();
  }

  /** The shipped settings, but for the queue's length. */
  private void start(int queueSize) {
    context.setMDCAdapter(new LogbackMDCAdapter());
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    ConsoleFlush flush = new ConsoleFlush();
    flush.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setEncoder(encoder);
    console.addFilter(flush);
    console.start();
    queue = new AsyncAppender();
    queue.setContext(context);
    queue.setQueueSize(queueSize);
    queue.setDiscardingThreshold(0);
    queue.setNeverBlock(false);
    queue.setMaxFlushTime(0);
    queue.addAppender(console);
    queue.start();
    logger = context.getLogger("test");
    logger.setLevel(Level.INFO);
    logger.addAppender(queue);
  }

  private void flushAll() {
    ConsoleFlush.flushAll(context);
  }

  private List<String> lines() {
    String text = captured.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  @Test
  void flush_returns_once_every_line_logged_before_it_is_on_stdout_in_order() {
    start(8192);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      logger.info("line {}", i);
      expected.add("line " + i);
    }
    flushAll();
    assertThat(lines()).containsExactlyElementsOf(expected);
  }

  @Test
  void a_full_queue_makes_loggers_wait_and_drops_nothing() throws Exception {
    start(16);
    int threads = 4;
    int each = 2000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> loggers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                for (int i = 0; i < each; i++) {
                  logger.info("t{} {}", id, i);
                }
              });
      th.start();
      loggers.add(th);
    }
    go.countDown();
    for (Thread th : loggers) {
      th.join();
    }
    flushAll();
    assertThat(lines()).hasSize(threads * each).doesNotHaveDuplicates();
  }

  @Test
  void stop_writes_what_is_still_queued() {
    start(8192);
    for (int i = 0; i < 3000; i++) {
      logger.info("line {}", i);
    }
    queue.stop();
    assertThat(lines()).hasSize(3000).last().isEqualTo("line 2999");
  }

  @Test
  void an_interrupted_logging_thread_still_gets_its_line_written() {
    start(8192);
    Thread.currentThread().interrupt();
    try {
      logger.info("while interrupted");
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }
    flushAll();
    assertThat(lines()).containsExactly("while interrupted");
  }

  @Test
  void the_flush_marker_is_never_written() {
    start(8192);
    flushAll();
    logger.info("after the flush");
    flushAll();
    assertThat(lines()).containsExactly("after the flush");
  }

  @Test
  void a_flush_passes_over_an_async_appender_without_the_filter() {
    context.setMDCAdapter(new LogbackMDCAdapter());
    ch.qos.logback.core.read.ListAppender<ILoggingEvent> target =
        new ch.qos.logback.core.read.ListAppender<>();
    target.setContext(context);
    target.start();
    AsyncAppender own = new AsyncAppender();
    own.setContext(context);
    own.addAppender(target);
    own.start();
    Logger other = context.getLogger("a deployment's own");
    other.addAppender(own);

    // Nothing on that appender's side releases a flush marker: waiting for it would never end.
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(10), this::flushAll);
    assertThat(target.list).isEmpty();
  }
}
