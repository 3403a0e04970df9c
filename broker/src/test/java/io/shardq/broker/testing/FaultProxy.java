package io.shardq.broker.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of PostgreSQL that injects one connection fault on request: when the
 * client sends a statement whose text contains a given fragment, the proxy either lets the server
 * run it to the end and drops the reply ({@link Fault#LOSE_REPLY}: the statement took effect, the
 * client never learns it) or cuts the connection before the server gets it ({@link
 * Fault#CUT_BEFORE}: it did not). Either way the client sees a broken connection.
 *
 * <p>The statement text travels in the protocol's Parse message, so the client must not use
 * named server-side statements for it: proxied URLs carry {@code prepareThreshold=0}.
 */
public final class FaultProxy implements AutoCloseable {
    /** What happens to the statement that matched. */
    public enum Fault {
        LOSE_REPLY,
        CUT_BEFORE
    }

    private record Armed(String fragment, Fault fault, CountDownLatch fired) {}

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final AtomicReference<Armed> armed = new AtomicReference<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "fault-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy in front of the server of {@code jdbcUrl}. */
    public static FaultProxy in(String jdbcUrl) throws IOException {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        return new FaultProxy(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort());
    }

    /** {@code jdbcUrl} with host and port replaced by the proxy's, and no named statements. */
    public String url(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String query = uri.getQuery() == null ? "" : uri.getQuery() + "&";
        return "jdbc:postgresql://127.0.0.1:" + server.getLocalPort() + uri.getPath() + "?" + query
                + "prepareThreshold=0";
    }

    /**
     * Injects {@code fault} into the next statement whose text contains {@code fragment}; the
     * returned latch opens when the fault took place.
     */
    public CountDownLatch arm(String fragment, Fault fault) {
        Armed a = new Armed(fragment, fault, new CountDownLatch(1));
        armed.set(a);
        return a.fired();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                Pair pair = new Pair(client, upstream);
                start("fault-proxy-up", pair::clientToServer);
                start("fault-proxy-down", pair::serverToClient);
            } catch (IOException e) {
                // closed, or the server refused: the client sees its connection fail
            }
        }
    }

    private static void start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    /** One proxied connection. */
    private final class Pair {
        final Socket client;
        final Socket upstream;
        /** Set when this connection's statement matched: the fault to apply to the reply. */
        volatile Armed faulted;

        Pair(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void clientToServer() {
            byte[] buf = new byte[65536];
            try (InputStream in = client.getInputStream();
                    OutputStream out = upstream.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    Armed a = armed.get();
                    if (a != null
                            && faulted == null
                            && contains(buf, n, a.fragment())
                            && armed.compareAndSet(a, null)) {
                        faulted = a;
                        if (a.fault() == Fault.CUT_BEFORE) {
                            closeBoth();
                            a.fired().countDown();
                            return;
                        }
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeBoth();
            }
        }

        void serverToClient() {
            byte[] buf = new byte[65536];
            try (InputStream in = upstream.getInputStream();
                    OutputStream out = client.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    Armed a = faulted;
                    if (a != null && a.fault() == Fault.LOSE_REPLY) {
                        // swallow the reply; once the server is ready for the next query (ReadyForQuery
                        // 'Z', length 5) the statement has run and, in autocommit, committed
                        if (containsReadyForQuery(buf, n)) {
                            closeBoth();
                            a.fired().countDown();
                            return;
                        }
                        continue;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeBoth();
            }
        }

        void closeBoth() {
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    private static boolean contains(byte[] buf, int n, String fragment) {
        return new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains(fragment);
    }

    private static boolean containsReadyForQuery(byte[] buf, int n) {
        for (int i = 0; i + 5 < n; i++) {
            if (buf[i] == 'Z' && buf[i + 1] == 0 && buf[i + 2] == 0 && buf[i + 3] == 0 && buf[i + 4] == 5) {
                return true;
            }
        }
        return false;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Cuts every connection open through the proxy now (both directions, no goodbye). */
    public void cutAll() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.removeIf(Socket::isClosed);
    }

    /** Waits for an armed fault to take place. */
    public static boolean await(CountDownLatch fired, long seconds) throws InterruptedException {
        return fired.await(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
