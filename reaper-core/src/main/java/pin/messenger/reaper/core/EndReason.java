package pin.messenger.reaper.core;

/**
 * Why a conference ended. The reaper writes EmptyTimeout, Timeout and Error; Completed is
 * end-conference's.
 */
public enum EndReason {
  Completed,
  EmptyTimeout,
  Timeout,
  Error
}
