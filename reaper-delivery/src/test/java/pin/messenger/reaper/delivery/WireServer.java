package pin.messenger.reaper.delivery;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real local HTTP server standing in for Jibri's HTTP API, whose stop needs nothing but a status:
 * it records every call and answers with the status and body the test chooses. LiveKit has its own
 * server with its wire format and token check, the testkit's {@code LiveKitEgressServer}.
 */
final class WireServer implements AutoCloseable {
  record Call(String method, String path, Map<String, List<String>> headers, String body) {
    String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> e.getValue().get(0))
          .findFirst()
          .orElse(null);
    }
  }

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private volatile int status = 200;
  private volatile String body = "{}";

  WireServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String in;
          try (InputStream is = exchange.getRequestBody()) {
            in = new String(is.readAllBytes(), StandardCharsets.UTF_8);
          }
          calls.add(
              new Call(
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getPath(),
                  Map.copyOf(exchange.getRequestHeaders()),
                  in));
          byte[] out = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, out.length);
          try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
          }
        });
    server.start();
  }

  /** Answers every following call with {@code status} and {@code body}. */
  void answer(int status, String body) {
    this.status = status;
    this.body = body;
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
