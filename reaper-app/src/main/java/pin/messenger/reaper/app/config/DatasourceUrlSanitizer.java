package pin.messenger.reaper.app.config;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Moves a password written into {@code spring.datasource.url} (…?password=…) to {@code
 * spring.datasource.password}, before anything uses the URL: libraries log the URL they connect to
 * (Flyway does at start-up), and the password must never reach a log line, an error or the status
 * output.
 */
public final class DatasourceUrlSanitizer
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {
  private static final Pattern PASSWORD =
      Pattern.compile("([?&])password=([^&]*)&?", Pattern.CASE_INSENSITIVE);

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    ConfigurableEnvironment env = context.getEnvironment();
    String url = env.getProperty("spring.datasource.url");
    if (url == null) {
      return;
    }
    Matcher m = PASSWORD.matcher(url);
    if (!m.find()) {
      return;
    }
    String password =
        java.net.URLDecoder.decode(m.group(2), java.nio.charset.StandardCharsets.UTF_8);
    String clean = m.replaceFirst("$1").replaceAll("[?&]$", "");
    Map<String, Object> props = new HashMap<>();
    props.put("spring.datasource.url", clean);
    if (env.getProperty("spring.datasource.password", "").isEmpty()) {
      props.put("spring.datasource.password", password);
    }
    env.getPropertySources().addFirst(new MapPropertySource("sanitizedDatasourceUrl", props));
  }
}
