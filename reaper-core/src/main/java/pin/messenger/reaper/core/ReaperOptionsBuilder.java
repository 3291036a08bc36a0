package pin.messenger.reaper.core;

import java.time.Duration;

/**
 * Builds {@link ConferenceRoomReaperOptions} starting from the defaults (the {@code DEFAULT_*}
 * constants there); {@link ConferenceRoomReaperOptions#toBuilder()} starts from given options.
 */
public final class ReaperOptionsBuilder {
  private Duration pollingInterval = ConferenceRoomReaperOptions.DEFAULT_POLLING_INTERVAL;
  private Duration emptyRoomGrace = ConferenceRoomReaperOptions.DEFAULT_EMPTY_ROOM_GRACE;
  private Duration provisionTimeout = ConferenceRoomReaperOptions.DEFAULT_PROVISION_TIMEOUT;
  private Duration staleLiveTimeout = ConferenceRoomReaperOptions.DEFAULT_STALE_LIVE_TIMEOUT;
  private int batchSize = ConferenceRoomReaperOptions.DEFAULT_BATCH_SIZE;
  private Duration lockTtl = ConferenceRoomReaperOptions.DEFAULT_LOCK_TTL;
  private Duration maxRunDuration = ConferenceRoomReaperOptions.DEFAULT_MAX_RUN_DURATION;
  private Duration statementTimeout = ConferenceRoomReaperOptions.DEFAULT_STATEMENT_TIMEOUT;
  private boolean enabled = true;
  private boolean drainEnabled = false;
  private Duration drainPause = ConferenceRoomReaperOptions.DEFAULT_DRAIN_PAUSE;
  private ClockSource clock = ConferenceRoomReaperOptions.DEFAULT_CLOCK;
  private Schedule schedule = ConferenceRoomReaperOptions.DEFAULT_SCHEDULE;
  private Duration nextDueCoalesce = ConferenceRoomReaperOptions.DEFAULT_NEXT_DUE_COALESCE;
  private Duration nextDueMinGap = ConferenceRoomReaperOptions.DEFAULT_NEXT_DUE_MIN_GAP;

  ReaperOptionsBuilder() {}

  /** A builder holding {@code from}'s values. */
  ReaperOptionsBuilder(ConferenceRoomReaperOptions from) {
    pollingInterval = from.pollingInterval();
    emptyRoomGrace = from.emptyRoomGrace();
    provisionTimeout = from.provisionTimeout();
    staleLiveTimeout = from.staleLiveTimeout();
    batchSize = from.batchSize();
    lockTtl = from.lockTtl();
    maxRunDuration = from.maxRunDuration();
    statementTimeout = from.statementTimeout();
    enabled = from.enabled();
    drainEnabled = from.drain().enabled();
    drainPause = from.drain().pause();
    clock = from.clock();
    schedule = from.schedule();
    nextDueCoalesce = from.nextDue().coalesce();
    nextDueMinGap = from.nextDue().minGap();
  }

  public ReaperOptionsBuilder pollingInterval(Duration v) {
    pollingInterval = v;
    return this;
  }

  public ReaperOptionsBuilder emptyRoomGrace(Duration v) {
    emptyRoomGrace = v;
    return this;
  }

  public ReaperOptionsBuilder provisionTimeout(Duration v) {
    provisionTimeout = v;
    return this;
  }

  public ReaperOptionsBuilder staleLiveTimeout(Duration v) {
    staleLiveTimeout = v;
    return this;
  }

  public ReaperOptionsBuilder batchSize(int v) {
    batchSize = v;
    return this;
  }

  public ReaperOptionsBuilder lockTtl(Duration v) {
    lockTtl = v;
    return this;
  }

  public ReaperOptionsBuilder maxRunDuration(Duration v) {
    maxRunDuration = v;
    return this;
  }

  public ReaperOptionsBuilder statementTimeout(Duration v) {
    statementTimeout = v;
    return this;
  }

  public ReaperOptionsBuilder enabled(boolean v) {
    enabled = v;
    return this;
  }

  public ReaperOptionsBuilder drainEnabled(boolean v) {
    drainEnabled = v;
    return this;
  }

  public ReaperOptionsBuilder drainPause(Duration v) {
    drainPause = v;
    return this;
  }

  public ReaperOptionsBuilder clock(ClockSource v) {
    clock = v;
    return this;
  }

  public ReaperOptionsBuilder schedule(Schedule v) {
    schedule = v;
    return this;
  }

  public ReaperOptionsBuilder nextDueCoalesce(Duration v) {
    nextDueCoalesce = v;
    return this;
  }

  public ReaperOptionsBuilder nextDueMinGap(Duration v) {
    nextDueMinGap = v;
    return this;
  }

  public ConferenceRoomReaperOptions build() {
    return new ConferenceRoomReaperOptions(
        pollingInterval,
        emptyRoomGrace,
        provisionTimeout,
        staleLiveTimeout,
        batchSize,
        lockTtl,
        maxRunDuration,
        statementTimeout,
        enabled,
        new ConferenceRoomReaperOptions.Drain(drainEnabled, drainPause),
        clock,
        schedule,
        new ConferenceRoomReaperOptions.NextDue(nextDueCoalesce, nextDueMinGap));
  }
}
