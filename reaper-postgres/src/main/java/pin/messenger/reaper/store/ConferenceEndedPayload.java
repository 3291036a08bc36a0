package pin.messenger.reaper.store;

import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.ConferenceEndedEvent;

/**
 * The wire form of {@code pin.messenger.conference-ended.v1}
 * (docs/contract/conference-ended.v1.md): the JSON written into the outbox row in the same
 * transaction as the close. camelCase keys in contract order, ids and enums as strings, instants
 * ISO-8601 UTC ending in {@code Z}, {@code participants} as {@code {"userId": …}} objects, absent
 * values as {@code null}. This class is the one definition of the payload.
 *
 * <p>Written by hand, not with Jackson's data binding: in a fresh process Jackson's first events
 * (introspecting the record, loading its serializers) would cost most of a {@code run-once}'s first
 * drain batch. The fields are ids, enums, numbers and instants, which need no escaping, and one
 * free string (the media type), which is escaped.
 */
public final class ConferenceEndedPayload {
  private ConferenceEndedPayload() {}

  /** The payload of {@code event}, one line of JSON. */
  public static String json(ConferenceEndedEvent e) {
    StringBuilder b = new StringBuilder(320 + 50 * e.participants().size());
    b.append('{');
    plain(b, "conferenceId", e.conferenceId()).append(',');
    plain(b, "chatId", e.chatId()).append(',');
    plain(b, "dealId", e.dealId()).append(',');
    plain(b, "tenantId", e.tenantId()).append(',');
    b.append("\"mediaType\":");
    string(b, e.mediaType()).append(',');
    plain(b, "status", e.status().name()).append(',');
    plain(b, "endReason", e.endReason().name()).append(',');
    plain(b, "startedByUserId", e.startedByUserId()).append(',');
    plain(b, "startedAt", e.startedAt()).append(',');
    plain(b, "endedAt", e.endedAt()).append(',');
    b.append("\"durationSeconds\":").append(e.durationSeconds()).append(',');
    b.append("\"peakParticipantCount\":").append(e.peakParticipantCount()).append(',');
    b.append("\"participants\":[");
    List<UUID> participants = e.participants();
    for (int i = 0; i < participants.size(); i++) {
      b.append(i == 0 ? "{" : ",{");
      plain(b, "userId", participants.get(i)).append('}');
    }
    b.append("],\"wasRecorded\":").append(e.wasRecorded()).append(',');
    plain(b, "recordingId", e.recordingId());
    return b.append('}').toString();
  }

  /**
   * {@code "name":"value"} for a value whose text needs no escaping (a UUID, an enum constant, an
   * instant), or {@code "name":null}.
   */
  private static StringBuilder plain(StringBuilder b, String name, @Nullable Object value) {
    b.append('"').append(name).append("\":");
    if (value == null) {
      return b.append("null");
    }
    // Instant.toString is ISO-8601 in UTC ending in Z, whatever the default zone.
    return b.append('"').append(value).append('"');
  }

  /** A JSON string with the characters JSON requires escaped, or {@code null}. */
  private static StringBuilder string(StringBuilder b, @Nullable String s) {
    if (s == null) {
      return b.append("null");
    }
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"');
  }
}
