package pin.messenger.reaper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The published JSON Schema of conference-ended.v1 (docs/contract), applied to every payload the
 * tests see.
 */
public final class ContractSchema {
  public static final Path SCHEMA = Path.of("docs", "contract", "conference-ended.v1.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static JsonSchema schema;

  private ContractSchema() {}

  private static synchronized JsonSchema schema() {
    if (schema == null) {
      SchemaValidatorsConfig config =
          SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
      try (InputStream in = Files.newInputStream(SCHEMA)) {
        schema =
            JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in, config);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return schema;
  }

  /** The schema's violations of {@code payload} (empty when valid). */
  public static Set<ValidationMessage> violations(String payload) {
    try {
      return schema().validate(JSON.readTree(payload));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void assertValid(String payload) {
    assertThat(violations(payload))
        .as("conference-ended.v1 schema violations of %s", payload)
        .isEmpty();
  }
}
