package pin.messenger.reaper.app.config;

import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import pin.messenger.reaper.app.metrics.DatabaseGauges;
import pin.messenger.reaper.app.metrics.DeliveryMeters;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.delivery.Delivery;
import pin.messenger.reaper.delivery.DeliveryObserver;
import pin.messenger.reaper.delivery.OutboxRelay;
import pin.messenger.reaper.delivery.RecorderOptions;
import pin.messenger.reaper.delivery.RecorderStopDispatcher;
import pin.messenger.reaper.delivery.RelayOptions;
import pin.messenger.reaper.delivery.TopicCheck;
import pin.messenger.reaper.store.DebeziumOutboxRows;
import pin.messenger.reaper.store.OutboxOptions;

/**
 * Delivery after commit: the Kafka relay (on when {@code spring.kafka.bootstrap-servers} is set)
 * and the recorder-stop dispatcher (on when {@code reaper.recorder.base-url} is set). Either being
 * off is logged once and leaves its rows in the database, nothing lost. The {@code spring.kafka.*}
 * settings are bound here: Boot's Kafka auto-configuration (a template, listener support, none of
 * it used) is excluded in application.properties.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(KafkaProperties.class)
public class DeliveryConfiguration {
  private static final Logger log = LoggerFactory.getLogger(DeliveryConfiguration.class);

  @Bean
  Delivery delivery(
      DataSource dataSource,
      Environment environment,
      ObjectProvider<KafkaProperties> kafkaProperties,
      ObjectProvider<DeliveryObserver> observers,
      ObjectProvider<OpenTelemetry> openTelemetry,
      Clock clock) {
    // The deliveries' spans continue the cycles' trace contexts stored on the rows.
    OpenTelemetry tracing = openTelemetry.getIfUnique(OpenTelemetry::noop);
    OptionsBinding options = OptionsBinding.of(environment);
    RelayOptions relayOptions = options.relay();
    RecorderOptions recorderOptions = options.recorder();
    // Resolved at each call, not now: the meters observe delivery and also read its pending counts.
    DeliveryObserver observer =
        new DeliveryObserver() {
          @Override
          public void relayed(int published, int refused, int quarantined, int unavailable) {
            observers.forEach(o -> o.relayed(published, refused, quarantined, unavailable));
          }

          @Override
          public void recorderDispatched(int delivered, int failed, int gaveUp) {
            observers.forEach(o -> o.recorderDispatched(delivered, failed, gaveUp));
          }

          @Override
          public void leaseLost(String delivery, int rows) {
            observers.forEach(o -> o.leaseLost(delivery, rows));
          }

          @Override
          public void brokerReachable(boolean up) {
            observers.forEach(o -> o.brokerReachable(up));
          }
        };
    OutboxRelay relay = null;
    Runnable topicCheck = null;
    OutboxOptions outbox = options.outbox();
    if (!outbox.relays()) {
      log.atInfo()
          .addKeyValue("outboxMode", outbox.mode().label())
          .log(
              "Kafka relay off: reaper.outbox.mode=debezium; conference-ended events are written to "
                  + DebeziumOutboxRows.TABLE
                  + " and published by the platform's Debezium connector (ops/kafka-connect/)");
    } else if (environment.containsProperty("spring.kafka.bootstrap-servers")) {
      Map<String, Object> producerProperties =
          producerProperties(kafkaProperties.getObject(), relayOptions);
      relay =
          new OutboxRelay(
              dataSource,
              () -> new KafkaProducer<>(producerProperties),
              relayOptions,
              observer,
              clock,
              tracing);
      Map<String, Object> adminProperties = kafkaProperties.getObject().buildAdminProperties();
      topicCheck = () -> TopicCheck.inBackground(adminProperties, ConferenceEndedEvent.TOPIC);
      log.atInfo()
          .addKeyValue("bootstrapServers", kafkaProperties.getObject().getBootstrapServers())
          .log(
              "Kafka relay on: publishing messenger.integration_outbox to "
                  + kafkaProperties.getObject().getBootstrapServers());
      String effective = relayOptions + " maxBlock=" + relayOptions.maxBlock();
      log.atInfo()
          .addKeyValue("options", effective)
          .log("conference-room-reaper effective relay options: " + effective);
    } else {
      log.atWarn()
          .log(
              "Kafka relay off: spring.kafka.bootstrap-servers is not set; conference-ended events stay in"
                  + " messenger.integration_outbox until a relay publishes them");
    }
    // Each delivery says once whether it is on, and why not.
    RecorderStopDispatcher recorder = null;
    if (recorderOptions.enabled()) {
      recorder = new RecorderStopDispatcher(dataSource, recorderOptions, observer, tracing);
      log.atInfo().log(
          "recorder stop dispatch on: "
              + recorderOptions.kind().name().toLowerCase(java.util.Locale.ROOT)
              + " at "
              + recorderOptions.endpoint());
      log.atInfo()
          .addKeyValue("options", recorderOptions.toString())
          .log("conference-room-reaper effective recorder options: " + recorderOptions);
    } else {
      log.atWarn()
          .log(
              "recorder stop dispatch off: reaper.recorder.kind=http and reaper.recorder.base-url is not"
                  + " set; stop requests stay in messenger.recorder_stop_requests");
    }
    return new Delivery(relay, recorder, relayOptions, recorderOptions, clock, topicCheck);
  }

  /** The delivery meters; they join the observers {@link #delivery} fans out to. */
  @Bean
  DeliveryMeters deliveryMeters(
      io.micrometer.core.instrument.MeterRegistry registry,
      DatabaseGauges database,
      Delivery delivery,
      Clock clock) {
    return new DeliveryMeters(registry, database, delivery, clock);
  }

  /**
   * Boot's spring.kafka.* producer settings (servers, TLS, SASL, client id), with what the relay's
   * at-least-once and its bounds need ({@link OutboxRelay#producerProperties}), all derived from
   * {@link RelayOptions}.
   */
  static Map<String, Object> producerProperties(KafkaProperties kafka, RelayOptions relay) {
    return OutboxRelay.producerProperties(kafka.buildProducerProperties(), relay);
  }
}
