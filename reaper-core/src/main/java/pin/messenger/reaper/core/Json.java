package pin.messenger.reaper.core;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;

/**
 * A minimal writer for flat JSON objects of ids, enums, numbers and instants. The core's payloads
 * hold nothing else, so a JSON library would be a dependency of the framework-free core for no
 * gain.
 */
final class Json {
  private final StringBuilder out = new StringBuilder(512).append('{');
  private boolean first = true;

  private Json name(String name) {
    if (!first) {
      out.append(',');
    }
    first = false;
    quote(name);
    out.append(':');
    return this;
  }

  Json field(String name, Object value) {
    name(name);
    if (value == null) {
      out.append("null");
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof Instant instant) {
      quote(DateTimeFormatter.ISO_INSTANT.format(instant));
    } else {
      quote(value.toString());
    }
    return this;
  }

  /** An array of {@code {"userId": …}} objects. */
  Json participants(String name, List<UUID> userIds) {
    name(name).out.append('[');
    for (int i = 0; i < userIds.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append("{\"userId\":");
      quote(userIds.get(i).toString());
      out.append('}');
    }
    out.append(']');
    return this;
  }

  private static boolean isPlain(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  String close() {
    return out.append('}').toString();
  }

  private void quote(String s) {
    out.append('"');
    if (isPlain(s)) {
      // Ids, enums and instants need no escaping: append them whole.
      out.append(s).append('"');
      return;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
