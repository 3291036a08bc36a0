package pin.messenger.reaper.app;

import java.util.Collection;
import java.util.Map;

/** Writes maps, lists and scalars (ids, instants and numbers as their text) as one line of JSON. */
final class JsonText {
  private JsonText() {}

  static String write(Object value) {
    StringBuilder b = new StringBuilder();
    append(b, value);
    return b.toString();
  }

  private static void append(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Map<?, ?> m) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        b.append(ReaperCli.quote(String.valueOf(e.getKey()))).append(':');
        append(b, e.getValue());
      }
      b.append('}');
    } else if (v instanceof Collection<?> c) {
      b.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) {
          b.append(',');
        }
        first = false;
        append(b, o);
      }
      b.append(']');
    } else if (v instanceof Number || v instanceof Boolean) {
      b.append(v);
    } else {
      b.append(ReaperCli.quote(v.toString()));
    }
  }
}
