package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * {@code reaper.outbox.mode} set as a user sets it, {@code REAPER_OUTBOX_MODE} in the environment
 * of the packaged jar: with {@code debezium}, {@code run-once} writes the event for the connector
 * (no row left in either outbox table), runs no relay although Kafka is configured, and {@code
 * status} says who publishes; without it, the relay's table gets the row as before.
 */
class DebeziumModeBlackBoxIT {
  static PostgresServer server;
  static Rooms rooms;

  @BeforeAll
  static void start() throws Exception {
    server = PostgresServer.startMigrated();
    rooms = server.rooms();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void reaper_outbox_mode_debezium_in_the_environment_writes_for_the_connector_and_runs_no_relay()
      throws Exception {
    Room room = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));
    Map<String, String> env = new HashMap<>(JarRunner.database(server));
    env.put("REAPER_OUTBOX_MODE", "debezium");
    // Kafka configured: in relay mode run-once would try to publish to it; here nothing may.
    env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9");

    JarRunner.Run run = JarRunner.run(env, "run-once");

    assertThat(run.exit()).as(run.stdout()).isZero();
    assertThat(run.json("emptyTimeout")).isEqualTo(1);
    assertThat(run.json("published")).isZero();
    assertThat(run.stdout()).contains("Kafka relay off: reaper.outbox.mode=debezium");
    assertThat(rooms.status(room.id)).isEqualTo("Ended");
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox")).isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.integration_outbox_debezium")).isZero();
    assertThat(rooms.count("SELECT count(*) FROM messenger.realtime_outbox")).isEqualTo(1);

    JarRunner.Run status = JarRunner.run(env, "status");
    assertThat(status.exit()).as(status.stdout()).isZero();
    assertThat(status.stdout())
        .contains("published by Debezium from the WAL of messenger.integration_outbox_debezium");

    Room relayed = rooms.insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));
    JarRunner.Run relayMode = JarRunner.run(JarRunner.database(server), "run-once");
    assertThat(relayMode.exit()).as(relayMode.stdout()).isZero();
    assertThat(
            rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE payload->>'conferenceId' = ?",
                relayed.id.toString()))
        .isEqualTo(1);
  }
}
