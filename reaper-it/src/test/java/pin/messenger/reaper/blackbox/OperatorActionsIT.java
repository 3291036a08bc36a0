package pin.messenger.reaper.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import pin.messenger.reaper.core.ConferenceEndedEvent;
import pin.messenger.reaper.testing.FakeMediaStack;
import pin.messenger.reaper.testing.KafkaTestSupport;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.Rooms.Room;

/**
 * From outside, the operator's actions against two running workers of the packaged jar, a real
 * broker and a real HTTP recorder: a pause of one phase obeyed by both runners while the other
 * phases go on, then caught up after resume; retry of rows in poison backoff; quarantined outbox
 * rows published again with their original {@code ce_id}; a given-up recorder stop sent again with
 * its Idempotency-Key; the audit trail; and bad input refused with its own exit status, changing
 * nothing. One server, broker and pair of workers for the class.
 */
class OperatorActionsIT {
  static ReliabilityHarness harness;
  static EmbeddedKafkaKraftBroker broker;
  static FakeMediaStack media;
  static Map<String, String> env;
  static final List<Integer> ports = new ArrayList<>();
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    harness = ReliabilityHarness.start();
    broker = KafkaTestSupport.broker(0, ConferenceEndedEvent.TOPIC);
    media = new FakeMediaStack();
    env = new HashMap<>(JarRunner.database(harness.server));
    env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", broker.getBrokersAsString());
    env.put("REAPER_RECORDER_BASE_URL", media.baseUrl().toString());
    for (String name : List.of("a", "b")) {
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      ports.add(port);
      List<String> args = new ArrayList<>();
      for (String arg : ReliabilityHarness.runArgs()) {
        if (!arg.startsWith("--server.port=")) {
          args.add(arg);
        }
      }
      args.add("--server.port=" + port);
      harness.workers.add(ReaperWorker.start(name, env, ReliabilityHarness.JVM, args));
    }
    for (ReaperWorker w : harness.workers) {
      w.awaitStarted(Duration.ofSeconds(120));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (harness != null) {
        harness.close();
      }
    } finally {
      if (broker != null) {
        broker.destroy();
      }
      if (media != null) {
        media.close();
      }
    }
  }

  /** A command as the on-call engineer runs it: the database only (no broker, no recorder). */
  static JarRunner.Split reaper(String... args) throws Exception {
    return JarRunner.runSplit(JarRunner.database(harness.server), ReliabilityHarness.JVM, args);
  }

  static void await(String what, Duration max, BooleanSupplier condition) throws Exception {
    Await.until(what, max, condition, () -> "; worker a:\n" + harness.workers.get(0).tail(20));
  }

  static String scrape(int port) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/prometheus"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void paused_provision_timeout_fails_no_room_on_either_runner_while_others_close_then_catches_up()
      throws Exception {
    JarRunner.Split pause =
        reaper(
            "pause",
            "--phase",
            "provision-timeout",
            "--reason",
            "media-stack admission incident",
            "--for",
            "30m",
            "--actor",
            "oncall-anna",
            "--json");
    assertThat(pause.exit()).as(pause.stderr()).isZero();
    assertThat((String) JsonPath.read(pause.stdout(), "$.result")).isEqualTo("applied");
    assertThat((Integer) JsonPath.read(pause.stdout(), "$.rowsChanged")).isEqualTo(1);
    assertThat(pause.stdout().strip().lines()).hasSize(1);
    assertThat(pause.stderr()).contains("\"message\":\"operator action\"");

    Instant pausedAt = Instant.now();
    Instant now = Instant.now();
    List<Room> provisioning = new ArrayList<>();
    List<Room> empty = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      provisioning.add(harness.rooms.insert(Rooms.provisioning(now.minusSeconds(600))));
      empty.add(harness.rooms.insert(Rooms.emptyActive(now.minusSeconds(600))));
    }
    await(
        "the empty rooms closed (the other phases go on)",
        Duration.ofSeconds(15),
        () -> empty.stream().allMatch(r -> harness.rooms.status(r.id).equals("Ended")));
    Instant closed = Instant.now();
    await(
        "two more cycles on each runner",
        Duration.ofSeconds(15),
        () -> harness.workers.stream().allMatch(w -> w.completedSince(closed) >= 2));
    assertThat(provisioning)
        .allSatisfy(r -> assertThat(harness.rooms.status(r.id)).isEqualTo("Provisioning"));
    for (int port : ports) {
      assertThat(scrape(port))
          .contains("messenger_conf_reaper_paused{phase=\"provision-timeout\"} 1.0")
          .contains("messenger_conf_reaper_paused{phase=\"empty-room\"} 0.0");
    }
    assertThat(
            harness.workers.stream()
                .flatMap(w -> w.cycles().stream())
                .filter(c -> c.completed() && c.lockAcquired() && c.startedAt().isAfter(pausedAt))
                .map(c -> ((Number) JsonPath.read(c.line(), "$.pausedPhases")).intValue()))
        .isNotEmpty()
        .containsOnly(1);

    JarRunner.Split status = reaper("status", "--json");
    assertThat(status.exit()).as(status.stderr()).isZero();
    assertThat((List<String>) JsonPath.read(status.stdout(), "$.pauses[*].scope"))
        .containsExactly("provision-timeout");
    assertThat((List<String>) JsonPath.read(status.stdout(), "$.pauses[*].actor"))
        .containsExactly("oncall-anna");

    JarRunner.Split resume =
        reaper("resume", "--phase", "provision-timeout", "--actor", "oncall-anna");
    assertThat(resume.exit()).as(resume.stderr()).isZero();
    assertThat(resume.stdout()).contains("resume: changed 1 row").contains("provision-timeout");
    await(
        "the paused rooms failed after resume",
        Duration.ofSeconds(15),
        () -> provisioning.stream().allMatch(r -> harness.rooms.status(r.id).equals("Failed")));

    JarRunner.Split audit = reaper("audit", "--limit", "5", "--json");
    assertThat(audit.exit()).as(audit.stderr()).isZero();
    assertThat((List<String>) JsonPath.read(audit.stdout(), "$.actions[*].action"))
        .containsSubsequence("resume", "pause");
    assertThat(
            (List<String>) JsonPath.read(audit.stdout(), "$.actions[?(@.action=='pause')].reason"))
        .containsExactly("media-stack admission incident");
  }

  @Test
  void retry_ends_the_backoff_of_one_conference_and_of_every_poison_row() throws Exception {
    Instant now = Instant.now();
    List<Room> backingOff = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      // Not due yet when inserted (the workers are running): due and in backoff in one update.
      Room r = harness.rooms.insert(Rooms.emptyActive(now));
      // Poison that was fixed by hand meanwhile: its retry is an hour away.
      harness.rooms.exec(
          "UPDATE messenger.conference_sessions SET reaper_attempts = 7,"
              + " reaper_last_error = 'started_at is null', reaper_last_error_at = ?,"
              + " reaper_next_attempt_at = ?, last_activity_at = ? WHERE id = ?",
          Rooms.ts(now.minusSeconds(60)),
          Rooms.ts(now.plusSeconds(3600)),
          Rooms.ts(now.minusSeconds(600)),
          r.id);
      backingOff.add(r);
    }
    Room one = backingOff.get(0);

    JarRunner.Split retry = reaper("retry", one.id.toString(), "--reason", "started_at fixed");
    assertThat(retry.exit()).as(retry.stderr()).isZero();
    assertThat(retry.stdout()).contains("retry: changed 1 row").contains(one.id.toString());
    await(
        "the retried row closed",
        Duration.ofSeconds(10),
        () -> harness.rooms.status(one.id).equals("Ended"));
    assertThat(harness.rooms.status(backingOff.get(1).id)).isEqualTo("Active");

    JarRunner.Split all = reaper("retry", "--poison", "--yes", "--json");
    assertThat(all.exit()).as(all.stderr()).isZero();
    assertThat((Integer) JsonPath.read(all.stdout(), "$.rowsChanged")).isEqualTo(2);
    await(
        "every retried row closed",
        Duration.ofSeconds(10),
        () -> backingOff.stream().allMatch(r -> harness.rooms.status(r.id).equals("Ended")));
  }

  @Test
  void requeued_quarantined_rows_reach_the_broker_with_their_original_ce_id() throws Exception {
    Instant now = Instant.now();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      UUID id = UUID.randomUUID();
      UUID conference = UUID.randomUUID();
      harness.rooms.exec(
          "INSERT INTO messenger.integration_outbox (id, topic, message_key, event_type, payload,"
              + " occurred_at, correlation_id, attempts, last_error, quarantined_at)"
              + " VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, 10, 'RecordTooLargeException', ?)",
          id,
          ConferenceEndedEvent.TOPIC,
          UUID.randomUUID().toString(),
          ConferenceEndedEvent.TOPIC,
          "{\"conferenceId\":\"" + conference + "\"}",
          Rooms.ts(now.minusSeconds(900)),
          UUID.randomUUID().toString(),
          Rooms.ts(now.minusSeconds(300)));
      ids.add(id.toString());
    }

    JarRunner.Split plan = reaper("requeue", "--kafka-quarantined", "--since", "1h");
    assertThat(plan.exit()).as(plan.stderr()).isEqualTo(4);
    assertThat(plan.stdout()).contains("would change 2 rows").contains("--yes");
    assertThat(
            harness.rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE quarantined_at IS NOT NULL"))
        .isEqualTo(2);

    JarRunner.Split requeue =
        reaper(
            "requeue",
            "--kafka-quarantined",
            "--since",
            "1h",
            "--yes",
            "--reason",
            "topic limit raised");
    assertThat(requeue.exit()).as(requeue.stderr()).isZero();

    Set<String> wanted = Set.copyOf(ids);
    List<CloudEvent> events = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
            KafkaTestSupport.consumer(broker.getBrokersAsString(), ConferenceEndedEvent.TOPIC);
        CloudEventDeserializer parser = new CloudEventDeserializer()) {
      for (ConsumerRecord<String, byte[]> r :
          KafkaTestSupport.readUntil(
              consumer,
              r -> wanted.contains(new String(r.headers().lastHeader("ce_id").value())),
              2,
              Duration.ofSeconds(30))) {
        events.add(parser.deserialize(r.topic(), r.headers(), r.value()));
      }
    }
    assertThat(events).extracting(CloudEvent::getId).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(
            harness.rooms.count(
                "SELECT count(*) FROM messenger.integration_outbox WHERE id::text = ANY(?) AND published_at IS NOT NULL",
                (Object) ids.toArray(String[]::new)))
        .isEqualTo(2);
  }

  @Test
  void requeued_recorder_stop_is_sent_again_with_its_idempotency_key() throws Exception {
    Instant now = Instant.now();
    UUID id = UUID.randomUUID();
    UUID recording = UUID.randomUUID();
    harness.rooms.exec(
        "INSERT INTO messenger.recorder_stop_requests (id, recording_id, conference_id, reason,"
            + " created_at, attempts, last_error, gave_up_at)"
            + " VALUES (?, ?, ?, 'conference-ended', ?, 10, 'HTTP 503', ?)",
        id,
        recording,
        UUID.randomUUID(),
        Rooms.ts(now.minusSeconds(900)),
        Rooms.ts(now.minusSeconds(60)));

    JarRunner.Split requeue = reaper("requeue", "--recorder-given-up", "--json");

    assertThat(requeue.exit()).as(requeue.stderr()).isZero();
    assertThat((List<String>) JsonPath.read(requeue.stdout(), "$.rows[*].id"))
        .containsExactly(id.toString());
    await(
        "the stop request delivered again",
        Duration.ofSeconds(15),
        () -> media.calls().stream().anyMatch(c -> c.path().contains(recording.toString())));
    assertThat(media.calls())
        .filteredOn(c -> c.path().contains(recording.toString()))
        .extracting(FakeMediaStack.Call::idempotencyKey)
        .containsOnly(id.toString());
  }

  @Test
  void bad_input_is_refused_with_its_own_exit_status_and_changes_nothing() throws Exception {
    long audited = harness.rooms.count("SELECT count(*) FROM messenger.conference_reaper_audit");
    // Two bad command lines from outside (exit status, empty stdout, the message); every other is
    // a command-line case of ReaperCliTest (the same parser, in-process).
    Map<List<String>, String> usage =
        Map.of(
            List.of("pause", "--phase", "bogus", "--reason", "x"), "unknown phase 'bogus'",
            List.of("retry", "not-a-uuid"), "'not-a-uuid' is not a conference id");
    for (Map.Entry<List<String>, String> e : usage.entrySet()) {
      JarRunner.Split run = reaper(e.getKey().toArray(String[]::new));
      assertThat(run.exit()).as(e.getKey() + ": " + run.stderr()).isEqualTo(2);
      assertThat(run.stdout()).as(e.getKey().toString()).isEmpty();
      assertThat(run.stderr()).as(e.getKey().toString()).contains(e.getValue());
    }

    UUID unknown = UUID.randomUUID();
    JarRunner.Split nothing = reaper("retry", unknown.toString());
    assertThat(nothing.exit()).as(nothing.stderr()).isEqualTo(3);
    assertThat(nothing.stdout()).contains("no conference " + unknown).contains("nothing changed");
    assertThat(harness.rooms.count("SELECT count(*) FROM messenger.conference_reaper_audit"))
        .isEqualTo(audited);
    assertThat(harness.rooms.count("SELECT count(*) FROM messenger.conference_reaper_pauses"))
        .isZero();
  }
}
