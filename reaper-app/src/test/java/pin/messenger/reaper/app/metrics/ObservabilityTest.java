package pin.messenger.reaper.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import pin.messenger.reaper.app.ReaperApplication;
import pin.messenger.reaper.app.lifecycle.ReaperLivenessIndicator;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.testing.Prerequisite;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The running worker's HTTP side: Prometheus exposition, health groups; metrics move as rooms are
 * reaped.
 */
class ObservabilityTest {
  static TestDatabase db;
  static ConfigurableApplicationContext ctx;
  static String base;
  static final HttpClient http = HttpClient.newHttpClient();

  static final List<String> SPEC_METRICS =
      List.of(
          "messenger_conf_reaper_run_total",
          "messenger_conf_reaper_cycle_duration_seconds_bucket",
          "messenger_conf_reaper_items_total{outcome=\"empty_timeout\"}",
          "messenger_conf_reaper_items_total{outcome=\"provision_failed\"}",
          "messenger_conf_reaper_items_total{outcome=\"stale_timeout\"}",
          "messenger_conf_reaper_active_backlog",
          "messenger_conf_reaper_skip_locked_total",
          "messenger_conf_reaper_errors_total");

  @BeforeAll
  static void start() {
    db = TestDatabase.create();
    ctx =
        new SpringApplicationBuilder(ReaperApplication.class)
            .web(WebApplicationType.SERVLET)
            .run(
                "--spring.datasource.url=" + db.url(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + db.password(),
                "--server.port=0",
                "--reaper.command=run",
                "--reaper.polling-interval=300ms",
                "--reaper.max-run-duration=200ms",
                "--reaper.statement-timeout=200ms");
    base = "http://127.0.0.1:" + ctx.getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    ctx.close();
    db.close();
  }

  static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static double value(String exposition, String series) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+-]+|NaN)$")
            .matcher(exposition);
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  @Test
  void every_metric_the_spec_names_is_exposed_from_start_up() throws Exception {
    String body = get("/actuator/prometheus").body();
    for (String metric : SPEC_METRICS) {
      assertThat(body).contains(metric);
    }
    assertThat(body)
        .contains("messenger_conf_reaper_cycle_duration_seconds_bucket{le=\"0.005\"}")
        .contains("messenger_conf_reaper_cycle_duration_seconds_bucket{le=\"30.0\"}")
        .contains("messenger_conf_reaper_lock_held_total")
        .contains("messenger_conf_reaper_phase_backlog{phase=\"empty-room\"}")
        .contains("messenger_conf_reaper_outbox_published_total")
        .contains("messenger_conf_reaper_recorder_stop_gave_up_total");
  }

  @Test
  void metric_values_move_as_a_room_is_reaped() throws Exception {
    String before = get("/actuator/prometheus").body();
    double closedBefore =
        value(before, "messenger_conf_reaper_items_total{outcome=\"empty_timeout\"}");
    new Rooms(db.dataSource()).insert(Rooms.emptyActive(Instant.now().minusSeconds(600)));

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    double closed = closedBefore;
    while (closed == closedBefore && System.nanoTime() < deadline) {
      Thread.sleep(100); // polling the scrape endpoint for the worker's next cycle
      closed =
          value(
              get("/actuator/prometheus").body(),
              "messenger_conf_reaper_items_total{outcome=\"empty_timeout\"}");
    }

    assertThat(closed).isEqualTo(closedBefore + 1);
    // The room is counted when its batch commits, the run when its cycle completes, a moment later.
    double runsBefore = value(before, "messenger_conf_reaper_run_total");
    double runs = runsBefore;
    while (runs == runsBefore && System.nanoTime() < deadline) {
      Thread.sleep(100);
      runs = value(get("/actuator/prometheus").body(), "messenger_conf_reaper_run_total");
    }
    assertThat(runs).isGreaterThan(runsBefore);
  }

  @Test
  void the_exposition_passes_promtool_check_metrics() throws Exception {
    Path promtool =
        Prerequisite.requireExecutable(
            Path.of("/usr/bin/promtool"), "apt-get install prometheus (.ci/run installs it)");
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().write(get("/actuator/prometheus").body().getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }

  @Test
  void liveness_and_readiness_are_up_while_cycles_complete_and_the_database_answers()
      throws Exception {
    assertThat(get("/actuator/health/liveness").body()).contains("\"status\":\"UP\"");
    assertThat(get("/actuator/health/readiness").body()).contains("\"status\":\"UP\"");
  }

  @Test
  void liveness_goes_down_only_when_the_loop_started_no_cycle_for_lock_ttl_plus_an_interval() {
    MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:00:00Z"));
    java.util.concurrent.atomic.AtomicReference<Instant> lastStarted =
        new java.util.concurrent.atomic.AtomicReference<>();
    ReaperLivenessIndicator liveness =
        new ReaperLivenessIndicator(
            lastStarted::get, ConferenceRoomReaperOptions.defaults(), clock);
    // defaults: lock-ttl 2m + polling-interval 30s
    assertThat(liveness.limit()).isEqualTo(Duration.ofSeconds(150));

    assertThat(liveness.health().getStatus().getCode()).isEqualTo("UP");
    clock.now = clock.now.plus(Duration.ofSeconds(150));
    assertThat(liveness.health().getStatus().getCode()).isEqualTo("UP");
    clock.now = clock.now.plus(Duration.ofSeconds(1)); // no cycle started since start-up: wedged
    assertThat(liveness.health().getStatus().getCode()).isEqualTo("DOWN");
    lastStarted.set(clock.now); // a cycle started (whether it then failed does not matter)
    assertThat(liveness.health().getStatus().getCode()).isEqualTo("UP");
    clock.now = clock.now.plus(Duration.ofSeconds(150));
    assertThat(liveness.health().getStatus().getCode()).isEqualTo("UP");
    clock.now = clock.now.plus(Duration.ofSeconds(1));
    assertThat(liveness.health().getStatus().getCode()).isEqualTo("DOWN");
  }

  @Test
  void liveness_ignores_a_disabled_worker() {
    MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:00:00Z"));
    ReaperLivenessIndicator liveness =
        new ReaperLivenessIndicator(
            () -> null, ConferenceRoomReaperOptions.builder().enabled(false).build(), clock);
    clock.now = clock.now.plus(Duration.ofHours(1));
    assertThat(liveness.health().getStatus().getCode()).isEqualTo("UP");
  }

  /** A clock the test moves. */
  static final class MutableClock extends Clock {
    Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
