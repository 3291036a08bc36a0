package pin.messenger.reaper.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;

/**
 * A real local HTTP server standing in for the media stack's recorder API: it records every call
 * and answers with the status the test chooses (or hangs, to test timeouts). Stoppable and
 * restartable on the same port.
 */
public final class FakeMediaStack implements AutoCloseable {
  /** One call as the server received it. */
  public record Call(
      String method,
      String path,
      String idempotencyKey,
      String contentType,
      String body,
      java.util.Map<String, List<String>> headers) {}

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile IntSupplier status = () -> 200;
  private volatile java.util.concurrent.CountDownLatch hang;
  private final int port;
  private HttpServer server;

  public FakeMediaStack() throws IOException {
    server = start(0);
    port = server.getAddress().getPort();
  }

  private HttpServer start(int onPort) throws IOException {
    HttpServer s =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 0);
    s.createContext(
        "/",
        exchange -> {
          String body;
          try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
          recordCall(
              new Call(
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders().getFirst("Idempotency-Key"),
                  exchange.getRequestHeaders().getFirst("Content-Type"),
                  body,
                  java.util.Map.copyOf(exchange.getRequestHeaders())));
          java.util.concurrent.CountDownLatch h = hang;
          if (h != null) {
            try {
              h.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          exchange.sendResponseHeaders(status.getAsInt(), -1);
          exchange.close();
        });
    s.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    s.start();
    return s;
  }

  private synchronized void recordCall(Call call) {
    calls.add(call);
    notifyAll();
  }

  /** Waits until at least {@code n} calls arrived; false when the wait ran out. */
  public synchronized boolean awaitCalls(int n, java.time.Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (calls.size() < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + port + "/media/v1");
  }

  public List<Call> calls() {
    return calls;
  }

  public void respond(int code) {
    status = () -> code;
  }

  /** Calls block until {@link #release()}. */
  public void hang() {
    hang = new java.util.concurrent.CountDownLatch(1);
  }

  public void release() {
    java.util.concurrent.CountDownLatch h = hang;
    hang = null;
    if (h != null) {
      h.countDown();
    }
  }

  public synchronized void stop() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }

  public synchronized void restart() throws IOException {
    if (server == null) {
      server = start(port);
    }
  }

  @Override
  public void close() {
    release();
    stop();
  }
}
