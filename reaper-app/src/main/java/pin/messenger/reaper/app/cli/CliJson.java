package pin.messenger.reaper.app.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import pin.messenger.reaper.core.CycleResult;
import pin.messenger.reaper.telemetry.Failures;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one JSON writer of the command line: every document a command prints on stdout ({@code
 * run-once}, {@code migrate}, {@code status --json}, {@code explain --json}, the operator actions'
 * {@code --json}) and their errors, one line each, each a record. Jackson writes ids as strings,
 * instants as ISO-8601 UTC ({@code …Z}), numbers and booleans unquoted, and escapes what needs
 * escaping.
 */
public final class CliJson {
  private static final JsonMapper MAPPER =
      JsonMapper.builder().addMixIn(CycleResult.class, RunOnceDocument.CycleFields.class).build();

  private CliJson() {}

  /** What a command prints when it fails or cannot run as given. */
  record ErrorDocument(String error) {}

  /** One line of JSON: a record's components (or a map's entries), in their order. */
  public static String write(Object document) {
    return MAPPER.writeValueAsString(document);
  }

  /**
   * A record's fields as its JSON document names them, in order, for a human line: {@code {id=…,
   * occurred_at=…}}.
   */
  static Map<String, Object> columns(Record row) {
    return MAPPER.convertValue(row, new TypeReference<LinkedHashMap<String, Object>>() {});
  }

  /**
   * {@code {"error": "<message>"}}: the message a person acts on ({@link Failures#report}), or a
   * usage error's.
   */
  static String error(String message) {
    return write(new ErrorDocument(message));
  }
}
