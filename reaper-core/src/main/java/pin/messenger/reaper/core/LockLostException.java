package pin.messenger.reaper.core;

/**
 * The run lock was taken away by the server (its TTL passed or its connection died); the cycle must
 * stop.
 */
public final class LockLostException extends StoreException {
  public LockLostException(String message, Throwable cause) {
    super(message, cause);
  }

  public LockLostException(String message) {
    super(message);
  }
}
