package pin.messenger.reaper.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import pin.messenger.reaper.core.ClockSource;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Schedule;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RelayOptions;
import pin.messenger.reaper.store.OutboxOptions;

/**
 * Every {@code reaper.*} property lands in its own field of the options the worker runs with.
 * {@link ConfigurationDefaultsTest} cannot see two swapped arguments of a {@code toOptions()} whose
 * options share a default (relay poll-interval and retry-base are both 1 s); here every property is
 * set at once, each to a value that is neither its default nor any other property's value, through
 * Spring's own {@code @ConfigurationProperties} binding, and each is found in the options component
 * of the same name. The properties are enumerated from the binding records, so a property added
 * without a value here fails the test, and so does an options component that no property sets.
 */
class ConfigurationBindingTest {

  /** One property as an operator sets it, and the value it must bind to. */
  record Setting(String property, String text, Object value) {}

  static final List<Setting> SETTINGS =
      List.of(
          new Setting("reaper.polling-interval", "7s", Duration.ofSeconds(7)),
          new Setting("reaper.empty-room-grace", "91s", Duration.ofSeconds(91)),
          new Setting("reaper.provision-timeout", "121s", Duration.ofSeconds(121)),
          new Setting("reaper.stale-live-timeout", "3h", Duration.ofHours(3)),
          new Setting("reaper.batch-size", "11", 11),
          new Setting("reaper.lock-ttl", "61s", Duration.ofSeconds(61)),
          new Setting("reaper.max-run-duration", "29s", Duration.ofSeconds(29)),
          new Setting("reaper.statement-timeout", "9s", Duration.ofSeconds(9)),
          new Setting("reaper.enabled", "false", false),
          new Setting("reaper.clock", "database", ClockSource.DATABASE),
          new Setting("reaper.schedule", "fixed", Schedule.FIXED),
          new Setting("reaper.next-due.coalesce", "201ms", Duration.ofMillis(201)),
          new Setting("reaper.next-due.min-gap", "1001ms", Duration.ofMillis(1001)),
          new Setting("reaper.drain.enabled", "true", true),
          new Setting("reaper.drain.pause", "51ms", Duration.ofMillis(51)),
          new Setting("reaper.schema.migrate", "false", false),
          new Setting("reaper.runners.retention", "2d", Duration.ofDays(2)),
          new Setting("reaper.outbox.mode", "debezium", OutboxOptions.Mode.DEBEZIUM),
          new Setting("reaper.relay.batch-size", "12", 12),
          new Setting("reaper.relay.poll-interval", "2s", Duration.ofSeconds(2)),
          new Setting("reaper.relay.lease", "3m", Duration.ofMinutes(3)),
          new Setting("reaper.relay.max-attempts", "13", 13),
          new Setting("reaper.relay.retry-base", "3s", Duration.ofSeconds(3)),
          new Setting("reaper.relay.retry-cap", "6m", Duration.ofMinutes(6)),
          new Setting("reaper.relay.retention", "8d", Duration.ofDays(8)),
          new Setting("reaper.relay.retention-batch", "14", 14),
          new Setting("reaper.relay.source", "/test/reaper-binding", "/test/reaper-binding"),
          new Setting("reaper.relay.send-timeout", "31s", Duration.ofSeconds(31)),
          new Setting("reaper.relay.outage-log-interval", "4m", Duration.ofMinutes(4)),
          new Setting("reaper.recorder.kind", "livekit", RecorderOptions.Kind.LIVEKIT),
          new Setting(
              "reaper.recorder.livekit.url",
              "https://livekit.binding.test",
              URI.create("https://livekit.binding.test")),
          new Setting("reaper.recorder.livekit.api-key", "APIbinding", "APIbinding"),
          new Setting(
              "reaper.recorder.livekit.api-secret",
              "a-binding-test-secret-of-over-32-bytes",
              "a-binding-test-secret-of-over-32-bytes"),
          new Setting(
              "reaper.recorder.jibri.url",
              "http://jibri.binding.test:2222",
              URI.create("http://jibri.binding.test:2222")),
          new Setting(
              "reaper.recorder.base-url",
              "http://recorder.binding.test:8081",
              URI.create("http://recorder.binding.test:8081")),
          new Setting("reaper.recorder.connect-timeout", "2100ms", Duration.ofMillis(2100)),
          new Setting("reaper.recorder.read-timeout", "5100ms", Duration.ofMillis(5100)),
          new Setting("reaper.recorder.batch-size", "15", 15),
          new Setting("reaper.recorder.poll-interval", "1100ms", Duration.ofMillis(1100)),
          new Setting("reaper.recorder.lease", "70s", Duration.ofSeconds(70)),
          new Setting("reaper.recorder.max-attempts", "16", 16),
          new Setting("reaper.recorder.retry-base", "1200ms", Duration.ofMillis(1200)),
          new Setting("reaper.recorder.retry-cap", "7m", Duration.ofMinutes(7)));

  /** Options of the application only, with no options-record component to land in. */
  static final Set<String> APP_ONLY = Set.of("reaper.schema.migrate", "reaper.runners.retention");

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(ReaperProperties.class)
  static class Binding {}

  /** What the worker runs with, as ReaperConfiguration and DeliveryConfiguration derive it. */
  record Bound(
      ReaperProperties reaper,
      ConferenceRoomReaperOptions options,
      RelayOptions relay,
      RecorderOptions recorder,
      OutboxOptions outbox) {
    static Bound of(ConfigurableApplicationContext ctx) {
      OptionsBinding options = OptionsBinding.of(ctx.getEnvironment());
      return new Bound(
          ctx.getBean(ReaperProperties.class),
          options.reaper(),
          options.relay(),
          options.recorder(),
          options.outbox());
    }

    /** The options record a property belongs to, and its path of components there. */
    Map.Entry<Record, String> target(String property) {
      if (property.startsWith(OptionsBinding.RELAY + ".")) {
        return Map.entry(relay, camel(property.substring(OptionsBinding.RELAY.length() + 1)));
      }
      if (property.startsWith(OptionsBinding.OUTBOX + ".")) {
        return Map.entry(outbox, camel(property.substring(OptionsBinding.OUTBOX.length() + 1)));
      }
      if (property.startsWith(OptionsBinding.RECORDER + ".")) {
        return Map.entry(recorder, camel(property.substring(OptionsBinding.RECORDER.length() + 1)));
      }
      return Map.entry(options, camel(property.substring(OptionsBinding.REAPER.length() + 1)));
    }
  }

  @Test
  void every_property_has_a_value_here_that_is_neither_its_default_nor_another_propertys() {
    assertThat(SETTINGS.stream().map(Setting::property))
        .as("every property the binding records declare, and only those")
        .containsExactlyInAnyOrderElementsOf(declaredProperties());
    // Swapped arguments show only if no two options share a value (schema.migrate is no options
    // argument: it may share false with reaper.enabled).
    assertThat(
            SETTINGS.stream()
                .filter(s -> !s.property().equals("reaper.schema.migrate"))
                .map(Setting::value)
                .toList())
        .as("values")
        .doesNotHaveDuplicates();

    Bound defaults = bind(Map.of(), ConfigurationBindingTest::asProperties);
    for (Setting s : SETTINGS) {
      assertThat(valueAt(defaults, s.property())).as(s.property()).isNotEqualTo(s.value());
    }
  }

  @Test
  void every_property_set_as_a_command_line_option_lands_in_its_own_options_field() {
    assertEachLandsInItsField(bind(settings(), ConfigurationBindingTest::asProperties));
  }

  @Test
  void every_property_set_as_an_environment_variable_lands_in_its_own_options_field() {
    Map<String, String> env = new LinkedHashMap<>();
    settings().forEach((property, text) -> env.put(environmentVariable(property), text));
    assertThat(env).containsKey("REAPER_RELAY_POLLINTERVAL");
    assertEachLandsInItsField(bind(env, ConfigurationBindingTest::asEnvironment));
  }

  private static void assertEachLandsInItsField(Bound bound) {
    Map<Record, Set<String>> landed = new HashMap<>();
    for (Setting s : SETTINGS) {
      assertThat(valueAt(bound, s.property())).as(s.property()).isEqualTo(s.value());
      if (!APP_ONLY.contains(s.property())) {
        Map.Entry<Record, String> t = bound.target(s.property());
        landed.computeIfAbsent(t.getKey(), k -> new TreeSet<>()).add(t.getValue());
      }
    }
    // No options component is left to a constant: each was the landing place of one property.
    for (Record options :
        List.of(bound.options(), bound.relay(), bound.recorder(), bound.outbox())) {
      assertThat(landed.get(options))
          .as(options.getClass().getSimpleName() + " components set by a property")
          .containsExactlyInAnyOrderElementsOf(leaves("", options.getClass()));
    }
  }

  /** The value a property ended up as: its options component (APP_ONLY: the app's own). */
  private static Object valueAt(Bound bound, String property) {
    if (property.equals("reaper.schema.migrate")) {
      return bound.reaper().schema().migrate();
    }
    if (property.equals("reaper.runners.retention")) {
      return bound.reaper().runners().retention();
    }
    Map.Entry<Record, String> target = bound.target(property);
    Object value = target.getKey();
    for (String name : target.getValue().split("\\.")) {
      value = read(component(value.getClass(), name), value);
    }
    return value;
  }

  private static RecordComponent component(Class<?> type, String name) {
    return List.of(type.getRecordComponents()).stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(type.getSimpleName() + " has no component " + name));
  }

  private static Object read(RecordComponent c, Object record) {
    try {
      return c.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The leaf components of an options record, nested ones as {@code drain.pause}. */
  private static List<String> leaves(String prefix, Class<?> type) {
    List<String> out = new ArrayList<>();
    for (RecordComponent c : type.getRecordComponents()) {
      if (c.getType().isRecord()) {
        out.addAll(leaves(prefix + c.getName() + ".", c.getType()));
      } else {
        out.add(prefix + c.getName());
      }
    }
    return out;
  }

  private static Map<String, String> settings() {
    Map<String, String> m = new LinkedHashMap<>();
    SETTINGS.forEach(s -> m.put(s.property(), s.text()));
    return m;
  }

  private static Bound bind(
      Map<String, String> values, Function<Map<String, String>, Customizer> source) {
    List<Bound> out = new ArrayList<>();
    source
        .apply(values)
        .apply(new ApplicationContextRunner().withUserConfiguration(Binding.class))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              out.add(Bound.of(ctx));
            });
    return out.get(0);
  }

  interface Customizer extends Function<ApplicationContextRunner, ApplicationContextRunner> {}

  private static Customizer asProperties(Map<String, String> values) {
    return runner ->
        runner.withPropertyValues(
            values.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList()
                .toArray(String[]::new));
  }

  /** As the process environment: Spring maps a source by this name as environment variables. */
  private static Customizer asEnvironment(Map<String, String> values) {
    return runner ->
        runner.withInitializer(
            ctx ->
                ctx.getEnvironment()
                    .getPropertySources()
                    .addFirst(
                        new SystemEnvironmentPropertySource(
                            "test-systemEnvironment", Map.<String, Object>copyOf(values))));
  }

  /** Spring's canonical variable of a property: dots to underscores, dashes dropped, upper case. */
  private static String environmentVariable(String property) {
    return property.replace(".", "_").replace("-", "").toUpperCase(Locale.ROOT);
  }

  /** The leaf properties of the bound records, in the kebab case an operator writes. */
  static Set<String> declaredProperties() {
    Set<String> out = new LinkedHashSet<>();
    collect(
        ReaperProperties.class.getAnnotation(ConfigurationProperties.class).prefix(),
        ReaperProperties.class,
        out);
    collect(OptionsBinding.REAPER, ConferenceRoomReaperOptions.class, out);
    collect(OptionsBinding.RELAY, RelayOptions.class, out);
    collect(OptionsBinding.RECORDER, RecorderOptions.class, out);
    collect(OptionsBinding.OUTBOX, OutboxOptions.class, out);
    return out;
  }

  private static void collect(String prefix, Class<?> type, Set<String> out) {
    for (RecordComponent c : type.getRecordComponents()) {
      String name = prefix + "." + kebab(c.getName());
      if (c.getType().isRecord()) {
        collect(name, c.getType(), out);
      } else {
        out.add(name);
      }
    }
  }

  private static String kebab(String camel) {
    return OptionsBinding.kebab(camel);
  }

  /** {@code next-due.min-gap} → {@code nextDue.minGap}: a dot stays, it is a nested record. */
  private static String camel(String kebab) {
    StringBuilder b = new StringBuilder();
    boolean upper = false;
    for (char ch : kebab.toCharArray()) {
      if (ch == '-') {
        upper = true;
      } else if (ch == '.') {
        b.append(ch);
      } else {
        b.append(upper ? Character.toUpperCase(ch) : ch);
        upper = false;
      }
    }
    return b.toString();
  }
}
