package io.shardq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.selector.Selector;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code shardq console}'s HTTP server: the page, its static files and the JSON API, on the JDK's
 * {@code com.sun.net.httpserver}. GETs are served from the sampler's last round (browse reads the
 * queue on request); POSTs are the admin actions.
 *
 * <p>Security: every request's {@code Host} must name the loopback address when the server is
 * bound to it (a page of another site cannot reach it by DNS rebinding). An admin action needs the
 * console to have been started with {@code --admin} and the request to carry this run's random
 * token in {@value #TOKEN_HEADER}: the page reads it from its own HTML, which another site's page
 * cannot read, and a cross-site form cannot set a header. Without either the answer is 403.
 */
final class ConsoleServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleServer.class);

    static final String TOKEN_HEADER = "X-ShardQ-Token";

    /** uPlot's WebJar (the tools' one chart stack, {@link io.shardq.tools.Charts}): served under /static/uplot/. */
    static final String UPLOT = io.shardq.tools.Charts.UPLOT;

    private static final Map<String, String> STATIC = Map.of(
            "console.js",
            "io/shardq/cli/console/console.js",
            "console.css",
            "io/shardq/cli/console/console.css",
            "uplot/uPlot.iife.min.js",
            UPLOT + "uPlot.iife.min.js",
            "uplot/uPlot.min.css",
            UPLOT + "uPlot.min.css");

    /** At most this many messages per browse: a page of them, not a dump. */
    static final int MAX_BROWSE = 500;

    /**
     * A browsed message's body is cut to this many bytes (the message view says so, with the full
     * size): 500 messages of a large body must not become a page of gigabytes.
     */
    static final int BODY_VIEW_LIMIT = 64 * 1024;

    /** The largest request the send form may post: one message of {@code queue load}'s format. */
    static final int MAX_SEND_BYTES = 1024 * 1024;

    private static final Map<ErrorKind, Integer> STATUS = Map.of(
            ErrorKind.UNKNOWN_DESTINATION, 404,
            ErrorKind.UNKNOWN_CACHE, 404,
            ErrorKind.INVALID_NAME, 400,
            ErrorKind.INVALID_SELECTOR, 400,
            ErrorKind.INVALID_ARGUMENT, 400,
            ErrorKind.ILLEGAL_STATE, 409,
            ErrorKind.SECURITY, 403);

    /** An error answered as {"error": message, "kind": kind} with its status. */
    static final class HttpError extends RuntimeException {
        final int status;
        final String kind;

        HttpError(int status, String kind, String message) {
            super(message);
            this.status = status;
            this.kind = kind;
        }
    }

    private final Broker broker;
    private final ConsoleSampler sampler;
    private final boolean admin;
    private final boolean loopback;
    private final String token;
    private final HttpServer server;
    private final ExecutorService executor;

    private ConsoleServer(Broker broker, ConsoleSampler sampler, InetSocketAddress address, boolean admin)
            throws IOException {
        this.broker = broker;
        this.sampler = sampler;
        this.admin = admin;
        this.loopback = address.getAddress().isLoopbackAddress();
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "shardq-console-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.server = HttpServer.create(address, 50);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    /**
     * Starts sampling and serving. {@code intervalMillis}: between stats rounds; {@code
     * historyMillis}: how far back the charts go.
     */
    static ConsoleServer start(
            Broker broker, InetSocketAddress address, boolean admin, long intervalMillis, long historyMillis)
            throws IOException {
        ConsoleSampler sampler = new ConsoleSampler(broker, Clock.systemUTC(), intervalMillis, historyMillis);
        ConsoleServer s;
        try {
            s = new ConsoleServer(broker, sampler, address, admin);
        } catch (IOException | RuntimeException e) {
            sampler.close();
            throw e;
        }
        sampler.start();
        s.server.start();
        LOG.info("console listening on {} (admin actions {})", s.port(), admin ? "on" : "off");
        return s;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** A stats round now (tests: the numbers as of this moment). */
    void refreshForTest() {
        sampler.refreshNow();
    }

    String token() {
        return token;
    }

    /** The address to print: the bound one, or 127.0.0.1 for the wildcard. */
    String url() {
        InetAddress a = server.getAddress().getAddress();
        String host = a.isAnyLocalAddress() ? "127.0.0.1" : a.getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + port() + "/";
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        sampler.close();
    }

    private void handle(HttpExchange x) throws IOException {
        try {
            try {
                checkHost(x);
                route(x);
            } catch (HttpError e) {
                json(x, e.status, error(e.kind, e.getMessage()));
            } catch (ShardQException e) {
                json(x, STATUS.getOrDefault(e.kind(), 500), error(e.kind().name(), message(e)));
            } catch (RuntimeException e) {
                LOG.warn("console - {} {} failed", x.getRequestMethod(), x.getRequestURI(), e);
                json(x, 500, error("INTERNAL", message(e)));
            }
        } finally {
            x.close();
        }
    }

    private static String message(Exception e) {
        return ShardqCommand.oneLine(ShardqCommand.describe(e));
    }

    /** When bound to loopback, only requests addressed to loopback: no DNS rebinding. */
    private void checkHost(HttpExchange x) {
        if (!loopback) {
            return;
        }
        String host = x.getRequestHeaders().getFirst("Host");
        String name = host == null ? "" : host.replaceFirst(":\\d+$", "");
        if (!Set.of("127.0.0.1", "localhost", "[::1]").contains(name)) {
            throw new HttpError(
                    403,
                    "FORBIDDEN",
                    "the console answers requests to 127.0.0.1, localhost or [::1] only, not to host " + host);
        }
    }

    private void route(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        String method = x.getRequestMethod();
        if (path.equals("/") || path.equals("/index.html")) {
            expect(method, "GET");
            page(x);
            return;
        }
        if (path.startsWith("/static/")) {
            expect(method, "GET");
            file(x, path.substring("/static/".length()));
            return;
        }
        if (!path.startsWith("/api/")) {
            throw new HttpError(404, "NOT_FOUND", "no page " + path + " (the console is at /)");
        }
        List<String> parts = List.of(path.substring("/api/".length()).split("/"));
        if (method.equals("POST")) {
            checkAdmin(x);
            json(x, 200, action(parts, query(x), x));
            return;
        }
        expect(method, "GET");
        json(x, 200, read(parts, query(x)));
    }

    private static void expect(String method, String allowed) {
        if (!method.equals(allowed)) {
            throw new HttpError(405, "METHOD_NOT_ALLOWED", method + " is not allowed here: use " + allowed);
        }
    }

    // ------------------------------------------------------------------------------------ reads

    private JsonNode read(List<String> p, Map<String, String> q) {
        ConsoleSampler.Snapshot s = sampler.snapshot();
        String what = p.get(0);
        switch (p.size() + ":" + what) {
            case "1:overview" -> {
                return overview(s);
            }
            case "1:history" -> {
                return history();
            }
            case "1:queues" -> {
                return s.queueList();
            }
            case "1:topics" -> {
                return s.topicList();
            }
            case "1:caches" -> {
                return s.cacheList();
            }
            case "1:instances" -> {
                return s.instances();
            }
            case "2:queues" -> {
                return sampled(p.get(1), sn -> sn.queueStats().get(p.get(1)), this::requireQueue);
            }
            case "2:topics" -> {
                return sampled(p.get(1), sn -> sn.topicStats().get(p.get(1)), this::requireTopic);
            }
            case "2:caches" -> {
                return sampled(p.get(1), sn -> sn.cacheStats().get(p.get(1)), this::requireCache);
            }
            case "3:queues" -> {
                if (p.get(2).equals("messages")) {
                    return browse(p.get(1), q);
                }
            }
            case "3:topics" -> {
                if (p.get(2).equals("subscriptions")) {
                    JsonNode stats = sampled(p.get(1), sn -> sn.topicStats().get(p.get(1)), this::requireTopic);
                    ObjectNode o = Json.object(); // as subscription list --json
                    o.put("topic", p.get(1));
                    o.set("subscriptions", stats.get("subscriptions"));
                    return o;
                }
            }
            default -> {}
        }
        throw new HttpError(404, "NOT_FOUND", "no API /api/" + String.join("/", p) + " (see docs/cli.md, console)");
    }

    /**
     * From the last round; a name it has not seen is checked (a clear 404 with the CLI's message),
     * and if it exists (created since) a round is taken now.
     */
    private JsonNode sampled(
            String name,
            java.util.function.Function<ConsoleSampler.Snapshot, ObjectNode> find,
            java.util.function.Consumer<String> require) {
        ObjectNode o = find.apply(sampler.snapshot());
        if (o == null) {
            require.accept(name);
            sampler.refreshNow();
            o = find.apply(sampler.snapshot());
        }
        if (o == null) {
            throw new HttpError(
                    503,
                    "NOT_SAMPLED",
                    name + " could not be sampled yet: " + sampler.snapshot().error());
        }
        return o;
    }

    private void requireQueue(String name) {
        Names.checkDestination(name);
        QueueCommand.require(broker.admin(), name);
    }

    private void requireTopic(String name) {
        Names.checkDestination(name);
        TopicCommand.require(broker.admin(), name);
    }

    private void requireCache(String name) {
        CacheCommand.require(broker.admin(), name);
    }

    private ObjectNode overview(ConsoleSampler.Snapshot s) {
        ObjectNode o = Json.object();
        ObjectNode c = o.putObject("console");
        c.put("admin", admin);
        c.put("refreshMillis", sampler.intervalMillis());
        c.put("sampledAt", s.sampledAtMillis());
        c.put("error", s.error());
        c.put("database", broker.config().embedded() ? "embedded PostgreSQL" : "PostgreSQL");
        c.put("bodyViewLimit", BODY_VIEW_LIMIT);
        c.put("maxSendBytes", MAX_SEND_BYTES);
        ArrayNode queues = o.putArray("queues");
        s.queueStats().values().forEach(queues::add);
        ArrayNode topics = o.putArray("topics");
        s.topicStats().values().forEach(topics::add);
        ArrayNode caches = o.putArray("caches");
        s.cacheStats().values().forEach(caches::add);
        o.set("instances", s.instances());
        return o;
    }

    private ObjectNode history() {
        ObjectNode o = Json.object();
        o.put("refreshMillis", sampler.intervalMillis());
        ArrayNode samples = o.putArray("samples");
        for (ConsoleSampler.Sample sample : sampler.history()) {
            ObjectNode x = samples.addObject();
            x.put("at", sample.atMillis());
            ObjectNode queues = x.putObject("queues");
            sample.queues().forEach((name, v) -> {
                ObjectNode q = queues.putObject(name);
                q.put("backlog", (long) v[0]);
                q.put("enqueuePerSecond", v[1]);
                q.put("dequeuePerSecond", v[2]);
                q.put("purgedPerSecond", v[3]);
            });
            ObjectNode topics = x.putObject("topics");
            sample.topics().forEach((name, v) -> {
                ObjectNode t = topics.putObject(name);
                t.put("retained", (long) v[0]);
                t.put("publishPerSecond", v[1]);
            });
        }
        return o;
    }

    /** {@code queue browse NAME [--selector S] [--limit N] [--json]}: the same checks, the same JSON. */
    private JsonNode browse(String name, Map<String, String> q) {
        requireQueue(name);
        String selector = q.get("selector");
        Selector filter = Selector.compile(selector == null || selector.isBlank() ? null : selector);
        int limit = intParam(q, "limit", 20, 1, MAX_BROWSE);
        int scan = intParam(q, "scan", 10_000, 1, 1_000_000);
        ArrayNode shown = QueueBrowseCommand.json(
                QueueBrowseCommand.browse(broker, name, filter, limit, scan).shown());
        for (JsonNode m : shown) {
            cutBody((ObjectNode) m.get("message"), BODY_VIEW_LIMIT);
        }
        return shown;
    }

    /**
     * Cuts a message's body (in {@link MessageJson}'s form) to {@code limit} bytes: the text to
     * whole characters whose UTF-8 fits, base64 to the first {@code limit} bytes. A cut body gets
     * {@code bodyBytes} (its full size) and {@code bodyTruncated}; one within the limit is left as
     * {@code queue browse --json} shows it.
     */
    static void cutBody(ObjectNode m, int limit) {
        JsonNode body = m.get("body");
        boolean text = "TEXT".equals(m.path("bodyType").asText()) && m.has("body");
        String field = text ? "body" : m.has("bodyBase64") ? "bodyBase64" : "body";
        JsonNode value = text ? body : m.get(field);
        if (value == null || !value.isTextual()) {
            return;
        }
        if (text) {
            String s = value.asText();
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            if (utf8.length <= limit) {
                return;
            }
            int end = 0;
            int bytes = 0;
            while (end < s.length()) {
                int cp = s.codePointAt(end);
                int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
                if (bytes + n > limit) {
                    break;
                }
                bytes += n;
                end += Character.charCount(cp);
            }
            m.put(field, s.substring(0, end));
            m.put("bodyBytes", utf8.length);
        } else {
            byte[] raw = Base64.getDecoder().decode(value.asText());
            if (raw.length <= limit) {
                return;
            }
            m.put(field, Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(raw, limit)));
            m.put("bodyBytes", raw.length);
        }
        m.put("bodyTruncated", true);
    }

    private static int intParam(Map<String, String> q, String name, int dflt, int min, int max) {
        String v = q.get(name);
        if (v == null || v.isEmpty()) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the error below says what is allowed
        }
        throw new HttpError(
                400,
                ErrorKind.INVALID_ARGUMENT.name(),
                name + " \"" + v + "\" is invalid: expected " + min + " to " + max);
    }

    // ---------------------------------------------------------------------------------- actions

    private void checkAdmin(HttpExchange x) {
        if (!admin) {
            throw new HttpError(
                    403,
                    "ADMIN_OFF",
                    "admin actions are off: start the console with --admin to purge, stop, start, requeue or send");
        }
        String sent = x.getRequestHeaders().getFirst(TOKEN_HEADER);
        if (sent == null
                || !MessageDigest.isEqual(
                        sent.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
            throw new HttpError(
                    403,
                    "BAD_TOKEN",
                    "admin request refused: it lacks this console run's token in the " + TOKEN_HEADER
                            + " header (send it from the console's own page)");
        }
    }

    /**
     * POST /api/queues/NAME/{purge, stop, start, requeue, send} and /api/topics/NAME/send: the
     * CLI's command, its line as "message".
     */
    private JsonNode action(List<String> p, Map<String, String> q, HttpExchange x) throws IOException {
        if (p.size() == 3 && p.get(0).equals("topics") && p.get(2).equals("send")) {
            requireTopic(p.get(1));
            ObjectNode o = send("topic", p.get(1), x);
            sampler.refreshNow();
            return o;
        }
        if (p.size() != 3 || !p.get(0).equals("queues")) {
            throw new HttpError(404, "NOT_FOUND", "no action /api/" + String.join("/", p));
        }
        String name = p.get(1);
        requireQueue(name);
        ObjectNode o = Json.object();
        o.put("queue", name);
        switch (p.get(2)) {
            case "send" -> o = send("queue", name, x);
            case "purge" -> {
                long purged = broker.admin().queues().purge(name);
                o.put("purged", purged);
                o.put("message", "purged queue " + name + ": " + Format.messages(purged) + " discarded");
            }
            case "stop", "start" -> {
                String which = q.getOrDefault("which", "both");
                if (!Set.of("enqueue", "dequeue", "both").contains(which)) {
                    throw new HttpError(
                            400,
                            ErrorKind.INVALID_ARGUMENT.name(),
                            "which \"" + which + "\" is invalid: expected enqueue, dequeue or both");
                }
                boolean enqueue = !which.equals("dequeue");
                boolean dequeue = !which.equals("enqueue");
                DestinationInfo d = p.get(2).equals("stop")
                        ? broker.admin().queues().stop(name, enqueue, dequeue)
                        : broker.admin().queues().start(name, enqueue, dequeue);
                o.put("enqueueEnabled", d.enqueueEnabled());
                o.put("dequeueEnabled", d.dequeueEnabled());
                o.put("message", QueueSwitchCommand.state(d));
            }
            case "requeue" -> {
                StringWriter err = new StringWriter();
                PrintWriter errOut = new PrintWriter(err);
                DlqRequeueCommand.Requeued r = DlqRequeueCommand.requeue(
                        broker,
                        name,
                        100,
                        intParam(q, "max", 0, 0, Integer.MAX_VALUE),
                        30_000,
                        GracefulStop.none(),
                        new Progress(errOut, "requeue", 0, false),
                        errOut);
                o.put("requeued", r.moved());
                o.put("message", r.message());
            }
            default ->
                throw new HttpError(
                        404, "NOT_FOUND", "no action " + p.get(2) + ": expected purge, stop, start, requeue or send");
        }
        LOG.info("console - {}", o.get("message").asText());
        sampler.refreshNow(); // the page's next look shows the effect
        return o;
    }

    /**
     * The send form: the request's body is one message in {@code queue load}'s JSON format (see
     * {@link MessageJson}); a message without a timestamp gets the time of sending. Sent and
     * committed in a transaction of its own.
     */
    private ObjectNode send(String kind, String name, HttpExchange x) throws IOException {
        byte[] raw;
        try (InputStream in = x.getRequestBody()) {
            raw = in.readNBytes(MAX_SEND_BYTES + 1);
        }
        if (raw.length > MAX_SEND_BYTES) {
            throw new HttpError(
                    413,
                    ErrorKind.INVALID_ARGUMENT.name(),
                    "the message is larger than the console's send limit of " + Format.bytes(MAX_SEND_BYTES)
                            + ": send it with shardq queue load");
        }
        io.shardq.broker.message.BrokerMessage m;
        try {
            JsonNode n = Json.MAPPER.readTree(raw);
            m = MessageJson.fromJson(n, System.currentTimeMillis());
        } catch (IOException | IllegalArgumentException e) {
            throw new HttpError(
                    400,
                    ErrorKind.INVALID_ARGUMENT.name(),
                    "the message is invalid: " + ShardqCommand.oneLine(e.getMessage()));
        }
        try (io.shardq.broker.shard.BrokerSession s =
                broker.openSession(io.shardq.broker.shard.BrokerSession.Mode.TRANSACTED)) {
            s.send(name, m);
            s.commit();
        }
        ObjectNode o = Json.object();
        o.put(kind, name);
        o.put("messageId", m.messageId());
        o.put("message", "sent " + m.messageId() + " to " + kind + " " + name);
        return o;
    }

    // ------------------------------------------------------------------------------------ output

    private static ObjectNode error(String kind, String message) {
        ObjectNode o = Json.object();
        o.put("error", message);
        o.put("kind", kind);
        return o;
    }

    private static Map<String, String> query(HttpExchange x) {
        Map<String, String> q = new HashMap<>();
        String raw = x.getRequestURI().getRawQuery();
        if (raw == null) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            q.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
        }
        return q;
    }

    private void page(HttpExchange x) throws IOException {
        String html = new String(resource("io/shardq/cli/console/index.html"), StandardCharsets.UTF_8)
                .replace("{{TOKEN}}", admin ? token : "")
                .replace("{{ADMIN}}", Boolean.toString(admin));
        send(x, 200, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    private void file(HttpExchange x, String name) throws IOException {
        String resource = STATIC.get(name);
        if (resource == null) {
            throw new HttpError(404, "NOT_FOUND", "no file /static/" + name);
        }
        String type = name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
        send(x, 200, type, resource(resource));
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = ConsoleServer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the console's file " + name + " is missing from the class path");
            }
            return in.readAllBytes();
        }
    }

    private static void json(HttpExchange x, int status, JsonNode body) throws IOException {
        send(x, status, "application/json", (Json.line(body) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        var h = x.getResponseHeaders();
        h.set("Content-Type", type);
        h.set("Cache-Control", "no-store");
        h.set("X-Content-Type-Options", "nosniff");
        h.set("Referrer-Policy", "no-referrer");
        // no inline script, no framing (an admin button cannot be clicked through another site's frame)
        h.set(
                "Content-Security-Policy",
                "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
                        + " frame-ancestors 'none'");
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }
}
