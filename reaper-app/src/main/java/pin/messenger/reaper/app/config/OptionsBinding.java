package pin.messenger.reaper.app.config;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RelayOptions;
import pin.messenger.reaper.store.OutboxOptions;

/**
 * Binds the options records of the core and of delivery straight from Spring's environment, so an
 * option is declared once: as a component of its record, with its default in the record's {@code
 * defaults()} and its check in the record's constructor. A component is the property of its
 * kebab-case name under the record's prefix ({@code batchSize} is {@code reaper.batch-size}, and
 * relaxed binding accepts {@code REAPER_BATCHSIZE}); a nested record is one level of the property
 * tree ({@code drain.pause}). A property that is not set keeps the default's value. Conversion
 * ({@code 30s}, {@code next-due}, URLs) and placeholders are Spring Boot's, as with
 * {@code @ConfigurationProperties}; the records stay free of Spring.
 */
final class OptionsBinding {
  static final String REAPER = "reaper";
  static final String RELAY = "reaper.relay";
  static final String RECORDER = "reaper.recorder";
  static final String OUTBOX = "reaper.outbox";

  private final Binder binder;

  OptionsBinding(Binder binder) {
    this.binder = binder;
  }

  static OptionsBinding of(Environment environment) {
    return new OptionsBinding(Binder.get(environment));
  }

  /** {@code reaper.*}. */
  ConferenceRoomReaperOptions reaper() {
    return bind(REAPER, ConferenceRoomReaperOptions.defaults());
  }

  /** {@code reaper.relay.*}. */
  RelayOptions relay() {
    return bind(RELAY, RelayOptions.defaults());
  }

  /** {@code reaper.recorder.*}. */
  RecorderOptions recorder() {
    return bind(RECORDER, RecorderOptions.defaults(null));
  }

  /** {@code reaper.outbox.*}. */
  OutboxOptions outbox() {
    return bind(OUTBOX, OutboxOptions.defaults());
  }

  /**
   * The record of {@code defaults}' type with each component bound from {@code prefix.<name>}, or
   * {@code defaults}' value where nothing is set. The record's own check runs on the result: its
   * {@link pin.messenger.reaper.core.InvalidOptionsException} goes to the caller as it is.
   */
  <T extends Record> T bind(String prefix, T defaults) {
    @SuppressWarnings("unchecked")
    Class<T> type = (Class<T>) defaults.getClass();
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    @Nullable Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      String property = prefix + "." + kebab(c.getName());
      Object fallback = read(c, defaults);
      types[i] = c.getType();
      values[i] =
          fallback instanceof Record nested
              ? bind(property, nested)
              : binder
                  .bind(property, Bindable.of(ResolvableType.forType(c.getGenericType())))
                  .orElse(fallback);
    }
    try {
      Constructor<T> canonical = type.getDeclaredConstructor(types);
      return canonical.newInstance(values);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException invalid) {
        throw invalid;
      }
      throw new IllegalStateException("cannot build " + type.getName(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build " + type.getName(), e);
    }
  }

  private static @Nullable Object read(RecordComponent component, Record record) {
    try {
      return component.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + component, e);
    }
  }

  /** {@code maxRunDuration} → {@code max-run-duration}. */
  static String kebab(String camel) {
    return camel.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
  }
}
