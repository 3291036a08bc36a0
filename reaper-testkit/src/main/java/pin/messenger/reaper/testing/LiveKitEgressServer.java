package pin.messenger.reaper.testing;

import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real local HTTP server speaking LiveKit's Egress service as far as a stop needs: {@code POST
 * /twirp/livekit.Egress/StopEgress} over Twirp's JSON wire format, behind LiveKit's API-key
 * authentication. It stands in for a LiveKit server in the tests of {@code
 * reaper.recorder.kind=livekit}, in process and as a black box, and answers as LiveKit does:
 *
 * <ul>
 *   <li>Authentication first (LiveKit's middleware, before Twirp sees the request): a bearer token
 *       that does not parse, names an unknown API key ({@code iss}), is not HS256-signed with that
 *       key's secret, or is outside its {@code nbf}/{@code exp} (one minute of leeway, as go-jose)
 *       is answered 401 with a plain-text reason, <em>not</em> a Twirp error body.
 *   <li>Twirp routing: not POST, another path, or a Content-Type other than JSON is {@code
 *       bad_route} (404); a body that is not a JSON {@code StopEgressRequest} is {@code malformed}
 *       (400).
 *   <li>The service: a request without a token or whose token lacks the {@code video.roomRecord}
 *       grant is {@code unauthenticated} (401, "permissions denied"); an egress id it does not know
 *       is {@code not_found} (404); an egress that is starting or active moves to {@code
 *       EGRESS_ENDING} and its {@code EgressInfo} is returned (200); any other status is {@code
 *       failed_precondition} (412, "egress with status … cannot be stopped").
 * </ul>
 *
 * Every request is recorded with what the server made of its token and what it answered. {@link
 * #answer} overrides the service's answer for requests that pass authentication, for the failures a
 * test cannot provoke through state (LiveKit unavailable, a proxy's HTML error page).
 */
public final class LiveKitEgressServer implements AutoCloseable {
  /** The one method served, as LiveKit's Twirp routes it. */
  public static final String STOP_EGRESS_PATH = "/twirp/livekit.Egress/StopEgress";

  /** LiveKit's egress states ({@code livekit.EgressStatus}) that this server uses. */
  public static final String STARTING = "EGRESS_STARTING";

  public static final String ACTIVE = "EGRESS_ACTIVE";
  public static final String ENDING = "EGRESS_ENDING";
  public static final String COMPLETE = "EGRESS_COMPLETE";

  /**
   * One request as the server received and answered it.
   *
   * @param egressId the {@code egress_id} the request's body asked to stop, whether or not the
   *     request got past authentication; null when the body has none
   * @param claims the bearer token's claims when the token verified (key, signature, time); null
   *     when there was no token or it was refused
   * @param refusal why the token was refused; null when it verified or there was none
   * @param status the HTTP status answered
   * @param answer the body answered
   */
  public record Call(
      String method,
      String path,
      Map<String, List<String>> headers,
      String body,
      String egressId,
      JWTClaimsSet claims,
      String refusal,
      int status,
      String answer) {

    /** The first value of a request header, its name matched case-insensitively; null if absent. */
    public String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> e.getValue().get(0))
          .findFirst()
          .orElse(null);
    }

    /** Whether the bearer token verified: known key, its secret's signature, within its times. */
    public boolean tokenVerified() {
      return claims != null;
    }

    /** Whether the verified token grants {@code video.roomRecord}, which egress calls need. */
    public boolean roomRecordGranted() {
      return claims != null && LiveKitWire.roomRecord(claims);
    }
  }

  private record Egress(String roomName, String roomId, String status, Instant startedAt) {}

  private final String apiKey;
  private final byte[] apiSecret;
  private final Map<String, Egress> egresses = new ConcurrentHashMap<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  private volatile LiveKitWire.Answer forced;

  /** Starts on a free loopback port, accepting tokens of this one API key pair. */
  public LiveKitEgressServer(String apiKey, String apiSecret) throws IOException {
    this.apiKey = apiKey;
    this.apiSecret = apiSecret.getBytes(StandardCharsets.UTF_8);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  /** The server's URL, what {@code reaper.recorder.livekit.url} is set to. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Registers an active egress (a recording in progress) of {@code roomName}. */
  public void egress(String egressId, String roomName) {
    egress(egressId, roomName, ACTIVE);
  }

  /** Registers an egress in {@code status}, e.g. {@link #COMPLETE} for one that already ended. */
  public void egress(String egressId, String roomName, String status) {
    egresses.put(
        egressId,
        new Egress(
            roomName,
            "RM_" + Integer.toHexString(roomName.hashCode()),
            status,
            Instant.now().minusSeconds(60)));
  }

  /** The egress's status now; null when the server does not know it. */
  public String status(String egressId) {
    Egress e = egresses.get(egressId);
    return e == null ? null : e.status();
  }

  /**
   * Answers every following request that passes authentication with {@code status} and {@code body}
   * instead of the service's own answer (e.g. 503 {@code {"code":"unavailable",…}}); null body:
   * back to the service's answers.
   */
  public void answer(int status, String body) {
    forced = body == null ? null : new LiveKitWire.Answer(status, body);
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The calls that asked to stop {@code egressId}. */
  public List<Call> calls(String egressId) {
    return calls.stream().filter(c -> egressId.equals(c.egressId())).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String body;
    try (InputStream in = exchange.getRequestBody()) {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Request r = new Request(exchange, body);
    LiveKitWire.Answer a = r.answer();
    byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
    exchange
        .getResponseHeaders()
        .add("Content-Type", r.twirp ? "application/json" : "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(a.status(), out.length == 0 ? -1 : out.length);
    try (OutputStream os = exchange.getResponseBody()) {
      os.write(out);
    }
    calls.add(
        new Call(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getPath(),
            Map.copyOf(exchange.getRequestHeaders()),
            body,
            r.egressId,
            r.claims,
            r.refusal,
            a.status(),
            a.body()));
  }

  /** One request on its way through authentication, Twirp and the service. */
  private final class Request {
    private final HttpExchange exchange;
    private final String body;
    String egressId;
    JWTClaimsSet claims;
    String refusal;
    boolean twirp;

    Request(HttpExchange exchange, String body) {
      this.exchange = exchange;
      this.body = body;
      this.egressId = LiveKitWire.sentEgressId(body);
    }

    LiveKitWire.Answer answer() {
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      if (authorization != null) {
        if (!authorization.startsWith("Bearer ")) {
          return refuse("invalid authorization header. Must start with Bearer ");
        }
        LiveKitWire.Verified v =
            LiveKitWire.verify(apiKey, apiSecret, authorization.substring("Bearer ".length()));
        if (v.refusal() != null) {
          return refuse(v.refusal());
        }
        claims = v.claims();
      }
      twirp = true;
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      if (!method.equals("POST")) {
        return LiveKitWire.twirpError(
            "bad_route", "unsupported method \"" + method + "\" (only POST is allowed)");
      }
      if (!path.equals(STOP_EGRESS_PATH)) {
        return LiveKitWire.twirpError("bad_route", "no handler for path \"" + path + "\"");
      }
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].strip();
      if (!mediaType.equalsIgnoreCase("application/json")) {
        return LiveKitWire.twirpError(
            "bad_route", "unexpected Content-Type: \"" + contentType + "\"");
      }
      try {
        Map<String, Object> json = JSONObjectUtils.parse(body.isBlank() ? "{}" : body);
        Object id = LiveKitWire.egressIdField(json);
        if (id != null && !(id instanceof String)) {
          return LiveKitWire.twirpError("malformed", "the json request could not be decoded");
        }
      } catch (ParseException e) {
        return LiveKitWire.twirpError("malformed", "the json request could not be decoded");
      }
      if (claims == null || !LiveKitWire.roomRecord(claims)) {
        return LiveKitWire.twirpError("unauthenticated", "permissions denied");
      }
      LiveKitWire.Answer f = forced;
      return f != null ? f : stop(egressId == null ? "" : egressId);
    }

    private LiveKitWire.Answer refuse(String reason) {
      refusal = reason;
      return new LiveKitWire.Answer(401, reason);
    }

    private LiveKitWire.Answer stop(String id) {
      Egress e = egresses.get(id);
      if (e == null) {
        return LiveKitWire.twirpError("not_found", "egress does not exist");
      }
      if (!e.status().equals(STARTING) && !e.status().equals(ACTIVE)) {
        return LiveKitWire.twirpError(
            "failed_precondition", "egress with status " + e.status() + " cannot be stopped");
      }
      Egress ending = new Egress(e.roomName(), e.roomId(), ENDING, e.startedAt());
      egresses.put(id, ending);
      Map<String, Object> info = new LinkedHashMap<>();
      info.put("egress_id", id);
      info.put("room_id", ending.roomId());
      info.put("room_name", ending.roomName());
      info.put("status", ending.status());
      // int64 fields are strings in protobuf's JSON mapping.
      info.put("started_at", Long.toString(LiveKitWire.nanos(ending.startedAt())));
      info.put("updated_at", Long.toString(LiveKitWire.nanos(Instant.now())));
      return new LiveKitWire.Answer(200, JSONObjectUtils.toJSONString(info));
    }
  }
}
