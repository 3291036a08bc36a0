package pin.messenger.reaper.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy that can cut the network: {@link #cut()} closes every open connection and
 * refuses new ones, {@link #restore()} accepts again on the same port; {@link #stall()} keeps
 * connections open but lets nothing through. For outages of a server that itself keeps running (a
 * broker whose clients lose the network), without touching the server's state.
 */
public final class TcpProxy implements AutoCloseable {
  private final int port;
  private volatile int targetPort;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket server;
  private volatile boolean closed;
  private final Object stallLock = new Object();
  private boolean stalled;

  public TcpProxy() throws IOException {
    ServerSocket s = newServer(0);
    this.port = s.getLocalPort();
    this.server = s;
    startAccepting(s);
  }

  public int port() {
    return port;
  }

  /** Where connections go; until set, connections are accepted and closed at once. */
  public void target(int targetPort) {
    this.targetPort = targetPort;
  }

  /** The network goes away: open connections are reset, new ones refused. */
  public synchronized void cut() throws IOException {
    ServerSocket s = server;
    server = null;
    if (s != null) {
      s.close();
    }
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  /**
   * The network stalls: connections stay open and new ones are accepted, but no byte goes through
   * in either direction until {@link #unstall()} (a hung broker or a black-holed route).
   */
  public void stall() {
    synchronized (stallLock) {
      stalled = true;
    }
  }

  /** Bytes flow again; what was held is delivered. */
  public void unstall() {
    synchronized (stallLock) {
      stalled = false;
      stallLock.notifyAll();
    }
  }

  private void awaitUnstalled() throws IOException {
    synchronized (stallLock) {
      while (stalled && !closed) {
        try {
          stallLock.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while stalled", e);
        }
      }
    }
  }

  /** The network is back, on the same port. */
  public synchronized void restore() throws IOException {
    if (server == null) {
      server = newServer(port);
      startAccepting(server);
    }
  }

  private static ServerSocket newServer(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return s;
  }

  private void startAccepting(ServerSocket s) {
    Thread t = new Thread(() -> accept(s), "tcp-proxy-" + port);
    t.setDaemon(true);
    t.start();
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        int target = targetPort;
        if (target <= 0) {
          client.close();
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        // Server socket closed by cut()/close(), or the target refused: keep accepting while open.
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  awaitUnstalled();
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // Connection cut or closed by a peer.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    cut();
  }
}
