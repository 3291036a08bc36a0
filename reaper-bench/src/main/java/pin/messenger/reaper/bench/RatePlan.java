package pin.messenger.reaper.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import pin.messenger.reaper.core.ConferenceRoomReaperOptions;
import pin.messenger.reaper.core.Phase;

/**
 * The rate section's rooms falling due ({@link ScaleRates}): {@code perSecond} rooms a second,
 * evenly spaced over the window (room {@code i} due at {@code start + (i + ½) / perSecond}), in a
 * fixed mix by position: of every 20, 10 stale-live (an occupied room whose presence stopped one
 * stale-live timeout before), 7 empty-room (emptied one grace before) and 3 provision-timeout
 * (created one provision timeout before, never admitted). Each room's reference time is its due
 * instant less its phase's window; the window may be no longer than the shortest phase window, so
 * every reference time is before the start and the rooms can be written before the window opens.
 */
final class RatePlan {

  /** One planted room: its id, its phase, the instant it falls due, and its reference time. */
  record Room(UUID id, Phase phase, Instant due, Instant reference) {}

  private RatePlan() {}

  static List<Room> plan(
      double perSecond, Duration window, Instant start, ConferenceRoomReaperOptions options) {
    if (!(perSecond > 0)) {
      throw new IllegalArgumentException("--rates needs rates above 0, got " + perSecond);
    }
    if (window.compareTo(options.shortestWindow()) > 0) {
      throw new IllegalArgumentException(
          "--rate-seconds may be at most the shortest window ("
              + options.shortestWindow().toSeconds()
              + " s), so every planted room's reference time is past when it is written; got "
              + window.toSeconds());
    }
    long n = Math.round(perSecond * window.toMillis() / 1000.0);
    List<Room> rooms = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      Phase phase = phase(i);
      Instant due = start.plusNanos((long) ((i + 0.5) * 1e9 / perSecond));
      rooms.add(new Room(UUID.randomUUID(), phase, due, due.minus(phase.window(options))));
    }
    return rooms;
  }

  /** The mix by position: of every 20 rooms, 10 stale-live, 7 empty-room, 3 provision-timeout. */
  static Phase phase(long i) {
    long k = i % 20;
    return k < 10 ? Phase.STALE_LIVE : k < 17 ? Phase.EMPTY_ROOM : Phase.PROVISION_TIMEOUT;
  }
}
