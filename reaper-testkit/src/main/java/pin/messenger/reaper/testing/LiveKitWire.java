package pin.messenger.reaper.testing;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * LiveKit's wire rules that {@link LiveKitEgressServer} applies: its token check and Twirp's
 * errors.
 */
final class LiveKitWire {
  /** go-jose's default leeway for {@code exp} and {@code nbf}, which LiveKit's token check uses. */
  static final Duration LEEWAY = Duration.ofMinutes(1);

  private LiveKitWire() {}

  /** An HTTP answer: status and body. */
  record Answer(int status, String body) {}

  /** A verified token's claims, or the reason it was refused (then claims is null). */
  record Verified(JWTClaimsSet claims, String refusal) {
    static Verified refused(String reason) {
      return new Verified(null, reason);
    }
  }

  /** LiveKit's token check: the token's claims when it verifies, else the reason it is refused. */
  static Verified verify(String apiKey, byte[] apiSecret, String token) {
    SignedJWT jwt;
    JWTClaimsSet c;
    try {
      jwt = SignedJWT.parse(token);
      c = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      return Verified.refused("invalid authorization token");
    }
    if (!apiKey.equals(c.getIssuer())) {
      return Verified.refused("invalid API key: " + c.getIssuer());
    }
    try {
      if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())
          || !jwt.verify(new MACVerifier(apiSecret))) {
        return Verified.refused("invalid token: error in cryptographic primitive");
      }
    } catch (JOSEException e) {
      return Verified.refused("invalid token: " + e.getMessage());
    }
    Instant now = Instant.now();
    Date exp = c.getExpirationTime();
    Date nbf = c.getNotBeforeTime();
    if (exp == null || now.isAfter(exp.toInstant().plus(LEEWAY))) {
      return Verified.refused("invalid token: validation failed, token is expired (exp)");
    }
    if (nbf != null && now.isBefore(nbf.toInstant().minus(LEEWAY))) {
      return Verified.refused("invalid token: validation failed, token not valid yet (nbf)");
    }
    return new Verified(c, null);
  }

  /** A Twirp error: its code's HTTP status and {@code {"code": …, "msg": …}}. */
  static Answer twirpError(String code, String msg) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("code", code);
    json.put("msg", msg);
    return new Answer(twirpStatus(code), JSONObjectUtils.toJSONString(json));
  }

  /** Twirp's HTTP status of an error code. */
  static int twirpStatus(String code) {
    return switch (code) {
      case "bad_route", "not_found" -> 404;
      case "malformed", "invalid_argument", "out_of_range" -> 400;
      case "unauthenticated" -> 401;
      case "permission_denied" -> 403;
      case "failed_precondition" -> 412;
      case "already_exists", "aborted" -> 409;
      case "resource_exhausted" -> 429;
      case "unavailable" -> 503;
      case "deadline_exceeded" -> 408;
      case "canceled" -> 408;
      case "unimplemented" -> 501;
      default -> 500;
    };
  }

  /** protobuf's JSON mapping accepts the field's proto name and its lowerCamelCase name. */
  static Object egressIdField(Map<String, Object> json) {
    return json.containsKey("egress_id") ? json.get("egress_id") : json.get("egressId");
  }

  /** The egress id a body asks for, read leniently for the record; null if it names none. */
  static String sentEgressId(String body) {
    try {
      return egressIdField(JSONObjectUtils.parse(body)) instanceof String id ? id : null;
    } catch (ParseException e) {
      return null;
    }
  }

  static boolean roomRecord(JWTClaimsSet claims) {
    try {
      Map<String, Object> video = claims.getJSONObjectClaim("video");
      return video != null && Boolean.TRUE.equals(video.get("roomRecord"));
    } catch (ParseException e) {
      return false;
    }
  }

  static long nanos(Instant i) {
    return TimeUnit.SECONDS.toNanos(i.getEpochSecond()) + i.getNano();
  }
}
