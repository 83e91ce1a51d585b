package io.millrace.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A stand-in for the MockController that Kestra's RequestTest runs its http.Request tasks against; the
 * corpus flow http-request-local was transcribed from those tests and describes this contract:
 * {@code GET /hello} 200 and {@code GET /hello417} 417, both with the body {@code { "hello": "world" }}, and
 * {@code POST /post/simple} (form) 200 with "{form field hello} > {header test}". Serves 127.0.0.1 only.
 */
final class KestraRequestTestServer implements AutoCloseable {
    private static final String HELLO = "{ \"hello\": \"world\" }";

    private final HttpServer server;

    private KestraRequestTestServer(HttpServer server) {
        this.server = server;
    }

    static KestraRequestTestServer start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/hello", exchange -> answer(exchange, 200, "application/json", HELLO));
        server.createContext("/hello417", exchange -> answer(exchange, 417, "application/json", HELLO));
        server.createContext("/post/simple", exchange -> {
            Map<String, String> form = form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            answer(exchange, 200, "text/plain", form.get("hello") + " > " + exchange.getRequestHeaders().getFirst("test"));
        });
        server.start();
        return new KestraRequestTestServer(server);
    }

    /** {@code http://127.0.0.1:<port>}, without a trailing slash. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private static void answer(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static Map<String, String> form(String body) {
        var fields = new HashMap<String, String>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return fields;
    }
}
