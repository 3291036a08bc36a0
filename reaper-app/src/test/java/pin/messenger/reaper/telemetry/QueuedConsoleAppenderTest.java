package pin.messenger.reaper.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The queued console appender loses no line: not when full, not at flush, not at stop. */
class QueuedConsoleAppenderTest {
  private final PrintStream original = System.out;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private final LoggerContext context = new LoggerContext();
  private QueuedConsoleAppender appender;
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

  private void start(int queueSize) {
    context.setMDCAdapter(new LogbackMDCAdapter());
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    appender = new QueuedConsoleAppender();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setQueueSize(queueSize);
    appender.start();
    logger = context.getLogger("test");
    logger.setLevel(Level.INFO);
    logger.addAppender(appender);
  }

  private List<String> lines() {
    String text = captured.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  @Test
  void flush_returns_once_every_line_logged_before_it_is_on_stdout_in_order() {
    start(QueuedConsoleAppender.DEFAULT_QUEUE_SIZE);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      logger.info("line {}", i);
      expected.add("line " + i);
    }
    appender.flush();
    assertThat(lines()).containsExactlyElementsOf(expected);
  }

  @Test
  void a_full_queue_makes_loggers_wait_and_drops_nothing() throws Exception {
    start(1);
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
    appender.flush();
    assertThat(lines()).hasSize(threads * each).doesNotHaveDuplicates();
  }

  @Test
  void stop_writes_what_is_still_queued() {
    start(QueuedConsoleAppender.DEFAULT_QUEUE_SIZE);
    for (int i = 0; i < 3000; i++) {
      logger.info("line {}", i);
    }
    appender.stop();
    assertThat(lines()).hasSize(3000).last().isEqualTo("line 2999");
  }

  @Test
  void an_interrupted_logging_thread_still_gets_its_line_written() {
    start(QueuedConsoleAppender.DEFAULT_QUEUE_SIZE);
    Thread.currentThread().interrupt();
    try {
      logger.info("while interrupted");
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }
    appender.flush();
    assertThat(lines()).containsExactly("while interrupted");
  }
}
