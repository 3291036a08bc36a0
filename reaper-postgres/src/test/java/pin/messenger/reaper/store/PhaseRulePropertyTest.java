package pin.messenger.reaper.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.ConferenceSession;
import pin.messenger.reaper.core.Decision;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperDecision;
import pin.messenger.reaper.testing.Rooms;
import pin.messenger.reaper.testing.TestDatabase;

/**
 * The SQL forms of each phase's rule ({@link PhaseRule}: the claim, the backlog gauge, explain's
 * match) and the Java re-check ({@link ReaperDecision}) agree on every generated row: a row is
 * selected by the SQL exactly when the decision does not skip it (it closes it, or rejects it as
 * poison). Rows are drawn with a seeded generator (set {@code -DphaseRule.seed=…} to replay one)
 * over every status, a null in every nullable column the rule or the decision reads, reference
 * times at each phase's window ± 1 µs, backoffs at asOf ± 1 µs, negative and zero counts, and many
 * ties on the order key (the timestamps come from a small pool), so the claim order's id tiebreaker
 * is exercised too.
 *
 * <p>Deadlines ({@link Deadlines}): a third of the rows stay unarmed (as the messenger inserts
 * them), the others get the deadline the reaper arms them at, as of an older version of the row
 * (earlier by 0, 1 µs or an hour: a heartbeat moved the row on since). Every SQL form must still
 * agree with the decision exactly, and a deadline must never lie after the instant the decision
 * first takes the row.
 */
class PhaseRulePropertyTest {
  static final int ROWS = 3_000;
  static final long SEED = Long.getLong("phaseRule.seed", 20261202L);
  static final Instant AS_OF = Instant.parse("2026-12-02T10:00:00.123456Z");
  static final ConferenceRoomReaperOptions OPTIONS = ConferenceRoomReaperOptions.defaults();
  static final Duration MICRO = Duration.of(1, ChronoUnit.MICROS);

  /** Windows a tenth as long: a configuration shortened after the rows were armed. */
  static final ConferenceRoomReaperOptions SHORTER =
      ConferenceRoomReaperOptions.builder()
          .emptyRoomGrace(OPTIONS.emptyRoomGrace().dividedBy(10))
          .provisionTimeout(OPTIONS.provisionTimeout().dividedBy(10))
          .staleLiveTimeout(OPTIONS.staleLiveTimeout().dividedBy(10))
          .build();

  /** PostgreSQL's uuid order: the 16 bytes compared unsigned. */
  static final Comparator<UUID> PG_UUID_ORDER =
      Comparator.<UUID>comparingLong(u -> u.getMostSignificantBits() ^ Long.MIN_VALUE)
          .thenComparingLong(u -> u.getLeastSignificantBits() ^ Long.MIN_VALUE);

  static TestDatabase db;
  static List<ConferenceSession> sessions;

  @BeforeAll
  static void generate() throws Exception {
    db = TestDatabase.create();
    Random random = new Random(SEED);
    List<Instant> pool = instants(random);
    sessions = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      sessions.add(session(random, pool));
    }
    insert(sessions);
    arm(random);
  }

  /**
   * Arms two rows in three, each as of a version of the row older by 0, 1 µs or an hour: its
   * reference time then ({@link Deadlines}' mark holds no window).
   */
  static void arm(Random random) throws Exception {
    String armed =
        "CASE WHEN s.status = 'Active' THEN %s ELSE %s END"
            .formatted(
                PhaseRule.of(Phase.STALE_LIVE).column(),
                PhaseRule.of(Phase.PROVISION_TIMEOUT).column());
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE messenger.conference_sessions s SET reaper_window_start = (%s) - ? * interval '1 microsecond' WHERE s.id = ?"
                    .formatted(armed))) {
      long[] olderBy = {0, 1, 3_600_000_000L};
      for (ConferenceSession s : sessions) {
        if (random.nextInt(3) == 0) {
          continue;
        }
        ps.setLong(1, olderBy[random.nextInt(olderBy.length)]);
        ps.setObject(2, s.id());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  static long micros(Duration d) {
    return PostgresReaperStore.micros(d);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  /**
   * The boundaries of every phase (cutoff ± 1 µs), asOf ± 1 µs, and a few far values: few enough
   * that many rows share a timestamp.
   */
  static List<Instant> instants(Random random) {
    List<Instant> pool = new ArrayList<>();
    for (Phase phase : Phase.values()) {
      Instant cutoff = phase.cutoff(AS_OF, OPTIONS);
      pool.addAll(List.of(cutoff.minus(MICRO), cutoff, cutoff.plus(MICRO)));
    }
    pool.addAll(List.of(AS_OF.minus(MICRO), AS_OF, AS_OF.plus(MICRO)));
    pool.add(AS_OF.minus(Duration.ofDays(3)));
    for (int i = 0; i < 6; i++) {
      // Anywhere from 5 h before asOf to a minute after it, at microsecond precision.
      pool.add(AS_OF.minus(MICRO.multipliedBy(random.nextLong(5L * 3600 * 1_000_000))));
    }
    pool.add(AS_OF.plusSeconds(60));
    return pool;
  }

  static ConferenceSession session(Random random, List<Instant> pool) {
    String[] statuses = {"Active", "Active", "Active", "Provisioning", "Provisioning", "Ended"};
    String status = random.nextInt(20) == 0 ? "Failed" : statuses[random.nextInt(statuses.length)];
    int[] counts = {-1, 0, 0, 0, 1, 2};
    Instant nextAttempt =
        switch (random.nextInt(6)) {
          case 0 -> AS_OF.minus(MICRO);
          case 1 -> AS_OF;
          case 2 -> AS_OF.plus(MICRO);
          case 3 -> pick(random, pool);
          default -> null;
        };
    return new ConferenceSession(
        uuid(random),
        uuid(random),
        uuid(random),
        uuid(random),
        random.nextBoolean() ? "Audio" : "Video",
        status,
        uuid(random),
        pick(random, pool),
        random.nextInt(4) == 0 ? null : pick(random, pool),
        pick(random, pool),
        counts[random.nextInt(counts.length)],
        random.nextInt(5),
        List.of(),
        null,
        List.of(),
        nextAttempt);
  }

  /** Ids from the seeded generator too, so that a seed replays the same claim order. */
  static UUID uuid(Random random) {
    return new UUID(random.nextLong(), random.nextLong());
  }

  static Instant pick(Random random, List<Instant> pool) {
    return pool.get(random.nextInt(pool.size()));
  }

  static void insert(List<ConferenceSession> rows) throws Exception {
    String sql =
        """
        INSERT INTO messenger.conference_sessions
          (id, chat_id, deal_id, tenant_id, media_type, status, started_by_user_id, created_at, started_at,
           last_activity_at, updated_at, active_participant_count, peak_participant_count, reaper_next_attempt_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """;
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (ConferenceSession s : rows) {
        int i = 1;
        ps.setObject(i++, s.id());
        ps.setObject(i++, s.chatId());
        ps.setObject(i++, s.dealId());
        ps.setObject(i++, s.tenantId());
        ps.setString(i++, s.mediaType());
        ps.setString(i++, s.status());
        ps.setObject(i++, s.startedByUserId());
        ps.setObject(i++, Rooms.ts(s.createdAt()));
        ps.setObject(i++, Rooms.ts(s.startedAt()));
        ps.setObject(i++, Rooms.ts(s.lastActivityAt()));
        ps.setObject(i++, Rooms.ts(s.lastActivityAt()));
        ps.setInt(i++, s.activeParticipantCount());
        ps.setInt(i++, s.peakParticipantCount());
        ps.setObject(i, Rooms.ts(s.reaperNextAttemptAt()));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** What the Java side says: the decision does not skip the row (it closes it or rejects it). */
  static boolean javaSelects(Phase phase, ConferenceSession s) {
    return !(ReaperDecision.decide(phase, s, AS_OF, OPTIONS) instanceof Decision.Skip);
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void the_claim_takes_exactly_the_rows_the_decision_does_not_skip_in_claim_order(Phase phase)
      throws Exception {
    List<ConferenceSession> claimed;
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      claimed = new Claims(c).claim(phase, phase.cutoff(AS_OF, OPTIONS), AS_OF, ROWS);
      c.rollback();
    }
    List<UUID> expected =
        sessions.stream()
            .filter(s -> javaSelects(phase, s))
            .sorted(
                Comparator.comparing(phase::orderKey)
                    .thenComparing(ConferenceSession::id, PG_UUID_ORDER))
            .map(ConferenceSession::id)
            .toList();

    assertAgree(phase, "claim", ids(claimed), expected, s -> javaSelects(phase, s));
    assertThat(ids(claimed)).as("claim order (seed %d)", SEED).containsExactlyElementsOf(expected);
    assertThat(expected).as("the generator reaches this phase's rows").hasSizeGreaterThan(20);
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void the_backlog_counts_exactly_the_rows_the_decision_finds_due(Phase phase) {
    List<ConferenceSession> due =
        sessions.stream().filter(s -> javaSelects(phase, s.withoutBackoff())).toList();

    Backlog.PhaseBacklog backlog =
        new PostgresReaperStore(db.dataSource()).backlog(AS_OF, OPTIONS).phase(phase);

    assertThat(backlog.due()).as("%s backlog (seed %d)", phase, SEED).isEqualTo(due.size());
    assertThat(backlog.oldestDueSince())
        .isEqualTo(
            due.stream()
                .map(phase::orderKey)
                .min(Comparator.naturalOrder())
                .orElseThrow()
                .plus(phase.window(OPTIONS)));
  }

  @ParameterizedTest
  @EnumSource(Phase.class)
  void explain_matches_a_phase_exactly_when_the_decision_finds_the_row_due(Phase phase)
      throws Exception {
    List<UUID> matched = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection()) {
      Object[] params = new Object[Phase.values().length + 1];
      for (Phase p : Phase.values()) {
        params[p.ordinal()] = Jdbc.ts(p.cutoff(AS_OF, OPTIONS));
      }
      String column = phase.name().toLowerCase(java.util.Locale.ROOT) + "_due";
      for (ConferenceSession s : sessions) {
        params[params.length - 1] = s.id();
        if (Boolean.TRUE.equals(
            Jdbc.rows(c, Explanation.PHASE_MATCH_SQL, params).get(0).get(column))) {
          matched.add(s.id());
        }
      }
    }
    List<UUID> expected =
        sessions.stream()
            .filter(s -> javaSelects(phase, s.withoutBackoff()))
            .map(ConferenceSession::id)
            .toList();

    assertAgree(phase, "explain", matched, expected, s -> javaSelects(phase, s.withoutBackoff()));
  }

  /**
   * The next-due read ({@link PhaseRule#dueAt} over {@link PhaseRule#candidate}) agrees with the
   * claim's rule at every instant, not only at asOf: a row's due time is the first microsecond at
   * which the decision stops skipping it (it is skipped one microsecond before, taken at it), a row
   * with no due time is skipped even days later, and the store's per-phase minimum is the least of
   * the rows'.
   */
  @ParameterizedTest
  @EnumSource(Phase.class)
  void the_due_time_is_the_first_instant_the_decision_takes_the_row(Phase phase) throws Exception {
    PhaseRule rule = PhaseRule.of(phase);
    Map<UUID, Instant> dueAt = new LinkedHashMap<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT s.id, CASE WHEN %s THEN %s END AS due FROM messenger.conference_sessions s"
                    .formatted(rule.candidate(), rule.dueAt()))) {
      ps.setLong(1, micros(phase.window(OPTIONS)));
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          dueAt.put(rs.getObject(1, UUID.class), Jdbc.instant(rs, "due"));
        }
      }
    }
    Instant farFuture = AS_OF.plus(Duration.ofDays(30));
    int withDueTime = 0;
    for (ConferenceSession s : sessions) {
      Instant due = dueAt.get(s.id());
      if (due == null) {
        assertThat(selectsAt(phase, s, farFuture))
            .as("%s: no due time but taken 30 days later: %s", phase, describe(phase, s))
            .isFalse();
      } else {
        withDueTime++;
        assertThat(selectsAt(phase, s, due))
            .as("%s: not taken at its due time %s: %s", phase, due, describe(phase, s))
            .isTrue();
        assertThat(selectsAt(phase, s, due.minus(MICRO)))
            .as("%s: taken before its due time %s: %s", phase, due, describe(phase, s))
            .isFalse();
      }
    }
    assertThat(withDueTime).as("the generator reaches this phase's rows").isGreaterThan(20);

    Instant readAt = Instant.now().minusSeconds(1);
    Instant earliest =
        new PostgresReaperStore(db.dataSource())
            .dueTimes(java.time.Clock.systemUTC(), OPTIONS)
            .earliest()
            .get(phase);
    Instant exact =
        dueAt.values().stream()
            .filter(java.util.Objects::nonNull)
            .min(Comparator.naturalOrder())
            .orElseThrow();
    if (rule.byDeadline()) {
      // Rows of the phase's status are unarmed (a third, as the messenger inserts them): the phase
      // needs a visit now, which arms them. Never later than now or the earliest due time.
      Instant latest = exact.isAfter(readAt) ? exact : Instant.now();
      assertThat(earliest).isBeforeOrEqualTo(latest);
      assertThat(armedEarliest(phase)).isBeforeOrEqualTo(exact);
    } else {
      assertThat(earliest).isEqualTo(exact);
    }
  }

  /**
   * The invariant that lets a cycle visit only the rows whose window has passed since their mark:
   * no live row is taken by the decision before its window, counted from its mark (as armed, or the
   * reference time it would be armed with), has passed, in its status's phase, nor, for a
   * Provisioning room, in stale-live once the messenger activates it (last activity at or after its
   * creation). The mark holds no window, so this holds for any window: checked with the options'
   * windows and with windows a tenth as long (a configuration shortened after the rows were armed).
   */
  @org.junit.jupiter.api.Test
  void no_row_is_taken_before_its_window_has_passed_since_its_mark() throws Exception {
    Map<UUID, Instant> mark = new LinkedHashMap<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT s.id, CASE WHEN s.reaper_window_start > '-infinity' THEN s.reaper_window_start
                                  WHEN s.status = 'Active' THEN %s ELSE %s END AS mark
                  FROM messenger.conference_sessions s
                 WHERE s.status IN ('Provisioning', 'Active')
                """
                    .formatted(
                        PhaseRule.of(Phase.STALE_LIVE).column(),
                        PhaseRule.of(Phase.PROVISION_TIMEOUT).column()))) {
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          mark.put(rs.getObject(1, UUID.class), Jdbc.instant(rs, "mark"));
        }
      }
    }
    int checked = 0;
    for (ConferenceRoomReaperOptions options : List.of(OPTIONS, SHORTER)) {
      for (ConferenceSession s : sessions) {
        Instant m = mark.get(s.id());
        if (m == null) {
          continue;
        }
        for (Phase phase : List.of(Phase.PROVISION_TIMEOUT, Phase.STALE_LIVE)) {
          Instant before = m.plus(phase.window(options)).minus(MICRO);
          assertThat(phase.from().name().equals(s.status()) && selectsAt(phase, s, before, options))
              .as("%s: taken before its window since its mark %s: %s", phase, m, describe(phase, s))
              .isFalse();
        }
        if (s.status().equals("Provisioning")) {
          ConferenceSession active = activated(s);
          Instant before = m.plus(Phase.STALE_LIVE.window(options)).minus(MICRO);
          assertThat(selectsAt(Phase.STALE_LIVE, active, before, options))
              .as(
                  "activated, taken before its window since its mark %s: %s",
                  m, describe(Phase.STALE_LIVE, active))
              .isFalse();
        }
        checked++;
      }
    }
    assertThat(checked).as("the generator reaches live rows").isGreaterThan(2_000);
  }

  /**
   * The run lock's probe ({@link DueReads#hasWork}) finds work for a phase from exactly the first
   * instant it has some: a row the decision takes, or (a deadline phase) a row outside backoff
   * whose window has passed since its mark, which the cycle re-arms. Checked one microsecond before
   * and at that instant, computed here from the decision and the stored marks, with the options'
   * windows and with windows a tenth as long; the unarmed rows are armed first (in a transaction
   * rolled back after), since an unarmed row is work at any instant.
   */
  @org.junit.jupiter.api.Test
  void the_lock_s_probe_finds_work_from_the_first_instant_a_phase_has_some() throws Exception {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        c.createStatement()
            .executeUpdate(
                """
                UPDATE messenger.conference_sessions s
                   SET reaper_window_start = CASE WHEN s.status = 'Active' THEN %s ELSE %s END
                 WHERE s.status IN ('Provisioning', 'Active') AND s.reaper_window_start = '-infinity'
                """
                    .formatted(
                        PhaseRule.of(Phase.STALE_LIVE).column(),
                        PhaseRule.of(Phase.PROVISION_TIMEOUT).column()));
        Map<UUID, Instant> marks = new LinkedHashMap<>();
        try (var rs =
            c.createStatement()
                .executeQuery(
                    "SELECT id, reaper_window_start FROM messenger.conference_sessions")) {
          while (rs.next()) {
            marks.put(rs.getObject(1, UUID.class), Jdbc.instant(rs, "reaper_window_start"));
          }
        }
        for (ConferenceRoomReaperOptions options : List.of(OPTIONS, SHORTER)) {
          for (Phase phase : Phase.values()) {
            Instant first = firstWork(phase, options, marks);
            assertThat(hasWork(c, phase, first.minus(MICRO), options))
                .as("%s: work found before %s", phase, first)
                .isFalse();
            assertThat(hasWork(c, phase, first, options))
                .as("%s: no work found at %s", phase, first)
                .isTrue();
          }
        }
      } finally {
        c.rollback();
      }
    }
  }

  /** The first instant {@code phase} has work, from the decision and the marks. */
  static Instant firstWork(
      Phase phase, ConferenceRoomReaperOptions options, Map<UUID, Instant> marks) {
    Instant first = null;
    for (ConferenceSession s : sessions) {
      if (!phase.from().name().equals(s.status())) {
        continue;
      }
      List<Instant> candidates = new ArrayList<>();
      Instant reference = phase == Phase.PROVISION_TIMEOUT ? s.createdAt() : s.lastActivityAt();
      Instant due = reference.plus(phase.window(options));
      if (s.reaperNextAttemptAt() != null && s.reaperNextAttemptAt().isAfter(due)) {
        due = s.reaperNextAttemptAt();
      }
      if (selectsAt(phase, s, due, options)) {
        assertThat(selectsAt(phase, s, due.minus(MICRO), options))
            .as("%s: taken before %s: %s", phase, due, describe(phase, s))
            .isFalse();
        candidates.add(due);
      }
      Instant mark = marks.get(s.id());
      if (PhaseRule.of(phase).byDeadline() && s.reaperNextAttemptAt() == null && mark != null) {
        candidates.add(mark.plus(phase.window(options)));
      }
      for (Instant c : candidates) {
        if (first == null || c.isBefore(first)) {
          first = c;
        }
      }
    }
    assertThat(first).as("%s: the generator gives the phase work", phase).isNotNull();
    return first;
  }

  static boolean hasWork(
      Connection c, Phase phase, Instant asOf, ConferenceRoomReaperOptions options)
      throws Exception {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + DueReads.hasWork("true"))) {
      DueReads.bindHasWork(ps, 1, asOf, options);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(DueReads.alias(phase) + "_has_work");
      }
    }
  }

  /** {@code s} as the messenger activates it: Active, last activity no earlier than creation. */
  static ConferenceSession activated(ConferenceSession s) {
    Instant last = s.lastActivityAt().isBefore(s.createdAt()) ? s.createdAt() : s.lastActivityAt();
    return new ConferenceSession(
        s.id(),
        s.chatId(),
        s.dealId(),
        s.tenantId(),
        s.mediaType(),
        "Active",
        s.startedByUserId(),
        s.createdAt(),
        s.startedAt(),
        last,
        s.activeParticipantCount(),
        s.peakParticipantCount(),
        s.participants(),
        s.latestRecordingId(),
        s.activeRecordingIds(),
        s.reaperNextAttemptAt());
  }

  /**
   * The earliest instant a row of the phase's status is visited: its mark (or, unarmed, the
   * reference time it would be armed with) plus the phase's window.
   */
  static Instant armedEarliest(Phase phase) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT min(CASE WHEN s.reaper_window_start = '-infinity' THEN %s ELSE s.reaper_window_start END)"
                        .formatted(PhaseRule.of(phase).column())
                    + " + ? * interval '1 microsecond'"
                    + " AS earliest FROM messenger.conference_sessions s WHERE s.status = ?")) {
      ps.setLong(1, micros(phase.window(OPTIONS)));
      ps.setString(2, phase.from().name());
      try (var rs = ps.executeQuery()) {
        rs.next();
        return Jdbc.instant(rs, "earliest");
      }
    }
  }

  static boolean selectsAt(Phase phase, ConferenceSession s, Instant asOf) {
    return selectsAt(phase, s, asOf, OPTIONS);
  }

  static boolean selectsAt(
      Phase phase, ConferenceSession s, Instant asOf, ConferenceRoomReaperOptions options) {
    return !(ReaperDecision.decide(phase, s, asOf, options) instanceof Decision.Skip);
  }

  static List<UUID> ids(List<ConferenceSession> rows) {
    return rows.stream().map(ConferenceSession::id).toList();
  }

  /** Same set of ids; on a difference, names the first rows on each side with their values. */
  static void assertAgree(
      Phase phase,
      String form,
      List<UUID> sql,
      List<UUID> java,
      Predicate<ConferenceSession> javaSide) {
    Map<UUID, ConferenceSession> byId = new LinkedHashMap<>();
    sessions.forEach(s -> byId.put(s.id(), s));
    List<ConferenceSession> onlySql =
        sql.stream().filter(id -> !java.contains(id)).map(byId::get).limit(3).toList();
    List<ConferenceSession> onlyJava =
        java.stream().filter(id -> !sql.contains(id)).map(byId::get).limit(3).toList();
    assertThat(onlySql.isEmpty() && onlyJava.isEmpty())
        .as(
            "%s %s (seed %d, asOf %s): selected by SQL only %s; by the decision only %s",
            phase,
            form,
            SEED,
            AS_OF,
            onlySql.stream().map(s -> describe(phase, s)).collect(Collectors.joining("; ")),
            onlyJava.stream().map(s -> describe(phase, s)).collect(Collectors.joining("; ")))
        .isTrue();
  }

  static String describe(Phase phase, ConferenceSession s) {
    return "%s status=%s created=%s last=%s count=%d started=%s next=%s → %s"
        .formatted(
            s.id(),
            s.status(),
            s.createdAt(),
            s.lastActivityAt(),
            s.activeParticipantCount(),
            s.startedAt(),
            s.reaperNextAttemptAt(),
            ReaperDecision.decide(phase, s, AS_OF, OPTIONS));
  }
}
