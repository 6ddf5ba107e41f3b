package dev.kairos.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a database server that, once armed with a text, lets the next client
 * message containing it reach the server and then cuts the connection instead of passing on the
 * server's answer: the statement (a {@code COMMIT}, say) takes effect and the client learns nothing
 * of it, as when a network drops the reply. The database's wire protocol answers each message
 * before the client sends the next (batches excepted), so the first bytes back after the armed
 * message are its answer.
 */
final class AnswerDroppingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final String host;
  private final int port;
  private volatile String armed;
  private volatile String after;

  /** Answers dropped so far. */
  final AtomicInteger dropped = new AtomicInteger();

  AnswerDroppingProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "answer-dropping-proxy");
    accept.setDaemon(true);
    accept.start();
  }

  /** The port clients connect to. */
  int port() {
    return server.getLocalPort();
  }

  /** The answer to the next client message that contains {@code text} is dropped (once). */
  void dropAnswerTo(String text) {
    dropAnswerTo(null, text);
  }

  /**
   * Once a client message contains {@code after}, the answer to that connection's next message
   * containing {@code text} is dropped (once).
   *
   * @param after what a connection must send first, or null for any connection
   * @param text what the message whose answer is dropped contains
   */
  void dropAnswerTo(String after, String text) {
    this.after = after;
    armed = text;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(host, port);
        Link link = new Link(client, upstream);
        start(() -> link.toServer(), "proxy-to-server");
        start(() -> link.toClient(), "proxy-to-client");
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void start(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  /** One client connection and its connection to the server. */
  private final class Link {
    private final Socket client;
    private final Socket upstream;
    private volatile boolean dropNextAnswer;
    private boolean sawAfter;

    Link(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void toServer() {
      byte[] buf = new byte[65536];
      try (InputStream in = client.getInputStream();
          OutputStream out = upstream.getOutputStream()) {
        for (int n; (n = in.read(buf)) > 0; ) {
          String text = armed;
          String sent = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
          String first = after;
          if (first != null && sent.contains(first)) {
            sawAfter = true;
          }
          if (text != null && (first == null || sawAfter) && sent.contains(text)) {
            armed = null;
            dropNextAnswer = true;
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // the link was cut
      } finally {
        cut();
      }
    }

    void toClient() {
      byte[] buf = new byte[65536];
      try (InputStream in = upstream.getInputStream();
          OutputStream out = client.getOutputStream()) {
        for (int n; (n = in.read(buf)) > 0; ) {
          if (dropNextAnswer) {
            dropped.incrementAndGet();
            return; // cut below, the answer unsent
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // the link was cut
      } finally {
        cut();
      }
    }

    private void cut() {
      try {
        client.close();
      } catch (IOException e) {
        // closing anyway
      }
      try {
        upstream.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
