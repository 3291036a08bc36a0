package pin.messenger.reaper.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import pin.messenger.reaper.core.Backlog;
import pin.messenger.reaper.core.ClockReading;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.DueTimes;
import pin.messenger.reaper.core.Phase;
import pin.messenger.reaper.core.ReaperStore;
import pin.messenger.reaper.core.StoreException;

/**
 * PostgreSQL implementation of the reaper's storage port. Plain JDBC over a pooled {@link
 * DataSource}: the run lock ({@link AdvisoryRunLock}), the batch transactions ({@link
 * PostgresBatch}) and the backlog read.
 */
public final class PostgresReaperStore implements ReaperStore {

  /** The run lock's name, hashed into its advisory-lock key ({@link AdvisoryRunLock#NAME}). */
  public static final String RUN_LOCK_NAME = AdvisoryRunLock.NAME;

  /**
   * The database's clock, once per cycle. {@code clock_timestamp()}, not {@code now()}: the moment
   * the statement runs, not when a transaction began (in autocommit they differ by microseconds,
   * but behind PgBouncer or in any wrapping transaction only the former is "now").
   */
  static final String DATABASE_CLOCK = "SELECT clock_timestamp() AS database_time";

  private final DataSource dataSource;

  /** Each phase's drain in the current cycle (drain mode's later batches); see DrainCursor. */
  private final Map<Phase, DrainCursor> drains = new EnumMap<>(Phase.class);

  private final OutboxOptions outbox;
  private final @Nullable DebeziumOutboxRows debeziumRows;

  public PostgresReaperStore(DataSource dataSource) {
    this(dataSource, OutboxOptions.defaults(), "");
  }

  /**
   * A store whose transitions write their integration events for {@code outbox}'s mode; {@code
   * source} is the CloudEvents {@code source} the rows of {@code debezium} mode carry ({@code
   * reaper.relay.source}; unused in {@code relay} mode, where the relay adds it when it sends).
   */
  public PostgresReaperStore(DataSource dataSource, OutboxOptions outbox, String source) {
    this.dataSource = dataSource;
    this.outbox = outbox;
    this.debeziumRows =
        outbox.mode() == OutboxOptions.Mode.DEBEZIUM ? new DebeziumOutboxRows(source) : null;
  }

  /** Who publishes the integration events this store writes. */
  public OutboxOptions outbox() {
    return outbox;
  }

  /** The Debezium-layout rows the transitions write; null in {@code relay} mode. */
  @Nullable DebeziumOutboxRows debeziumRows() {
    return debeziumRows;
  }

  /** {@code phase}'s drain cursor for the cycle at {@code asOf}; a new one for a new cycle. */
  synchronized DrainCursor drainCursor(Phase phase, Instant asOf) {
    DrainCursor cursor = drains.get(phase);
    if (cursor == null || !cursor.belongsTo(phase, asOf)) {
      cursor = new DrainCursor(phase, asOf);
      drains.put(phase, cursor);
    }
    return cursor;
  }

  /** A phase's first batch of a cycle: whatever an earlier drain read ahead is stale. */
  synchronized void forgetDrain(Phase phase) {
    drains.remove(phase);
  }

  @Override
  public RunLock tryAcquireRunLock(
      Duration ttl, Instant asOf, ConferenceRoomReaperOptions options) {
    return AdvisoryRunLock.tryAcquire(dataSource, ttl, asOf, options);
  }

  @Override
  public Backlog backlog(Instant asOf, ConferenceRoomReaperOptions options) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(DueReads.BACKLOG_SQL)) {
      DueReads.bindBacklog(ps, asOf, options);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Map<Phase, Backlog.PhaseBacklog> phases = new EnumMap<>(Phase.class);
        for (Phase phase : Phase.values()) {
          Instant oldest = Jdbc.instant(rs, alias(phase) + "_oldest");
          phases.put(
              phase,
              new Backlog.PhaseBacklog(
                  rs.getLong(alias(phase) + "_due"),
                  oldest == null ? null : oldest.plus(phase.window(options))));
        }
        return new Backlog(asOf, phases, rs.getLong("total_due"));
      }
    } catch (SQLException e) {
      throw new StoreException("reading the backlog failed: " + Jdbc.describe(e), e);
    }
  }

  /**
   * One autocommit statement on a pooled connection, bracketed by the worker's clock: the skew is
   * database time minus the worker's time at the midpoint of the round trip (the connection is
   * taken before the bracket, so a wait for the pool does not count). A statement this cheap is
   * bounded by the pool's socket timeout.
   */
  @Override
  public ClockReading readClock(Clock workerClock) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(DATABASE_CLOCK)) {
      Instant sent = workerClock.instant();
      long start = System.nanoTime();
      Instant databaseTime;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        databaseTime = Objects.requireNonNull(Jdbc.instant(rs, "database_time"));
      }
      Duration roundTrip = Duration.ofNanos(System.nanoTime() - start);
      return new ClockReading(databaseTime, sent.plus(roundTrip.dividedBy(2)), roundTrip);
    } catch (SQLException e) {
      throw new StoreException("could not read the database's clock: " + Jdbc.describe(e), e);
    }
  }

  /**
   * One autocommit statement ({@link DueReads#DUE_TIMES_SQL}); the skew is database time minus the
   * worker's time when the answer arrived (the database reads its clock after the scan, so the
   * receipt is the nearer bracket).
   */
  @Override
  public DueTimes dueTimes(Clock workerClock, ConferenceRoomReaperOptions options) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(DueReads.DUE_TIMES_SQL)) {
      DueReads.bindDueTimes(ps, options);
      long start = System.nanoTime();
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Instant received = workerClock.instant();
        Duration roundTrip = Duration.ofNanos(System.nanoTime() - start);
        Map<Phase, Instant> earliest = new EnumMap<>(Phase.class);
        for (Phase phase : Phase.values()) {
          Instant due = Jdbc.instant(rs, alias(phase) + "_next_due");
          if (due != null) {
            earliest.put(phase, due);
          }
        }
        Instant databaseTime = Objects.requireNonNull(Jdbc.instant(rs, "database_time"));
        return new DueTimes(
            earliest,
            Pauses.decode(rs.getString("pauses")),
            new ClockReading(databaseTime, received, roundTrip));
      }
    } catch (SQLException e) {
      throw new StoreException("reading the due times failed: " + Jdbc.describe(e), e);
    }
  }

  /** A window in whole microseconds (PostgreSQL's resolution). */
  static long micros(Duration d) {
    return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
  }

  private static String alias(Phase phase) {
    return DueReads.alias(phase);
  }

  @Override
  public Batch beginBatch(Duration statementTimeout, Duration idleTimeout) {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(false);
      return new PostgresBatch(c, statementTimeout, idleTimeout, this);
    } catch (SQLException e) {
      Jdbc.endQuietly(c);
      throw new StoreException("could not begin a batch: " + Jdbc.describe(e), e);
    }
  }
}
