package io.millrace.triggers;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.millrace.serdes.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * A STAND-IN for a Confluent-compatible schema registry, NOT Confluent's Schema Registry server (which cannot be
 * installed here): a JDK {@code HttpServer} on a free local port that serves only {@code GET /schemas/ids/{id}} the way
 * Confluent's REST API documents it: {@code 200 {"schema": "<schema JSON as a string>"}} (with {@code schemaType} when
 * it is not AVRO), {@code 404 {"error_code": 40403, "message": "Schema 7 not found"}} for an unknown id, {@code 401}
 * without the HTTP Basic credentials it was told to require. It counts the requests it answered, can be told to answer
 * a status for every request or to answer late, and writes records in Confluent's wire format for the tests.
 */
final class SchemaRegistryStandIn implements AutoCloseable {
    private final HttpServer server;
    private final Map<Integer, String> answers = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile String authorization;
    private volatile int forcedStatus;
    private volatile Duration delay = Duration.ZERO;

    SchemaRegistryStandIn() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/schemas/ids/", this::answer);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Registers an Avro schema under {@code id}. */
    SchemaRegistryStandIn register(int id, Schema schema) {
        answers.put(id, Json.write(Map.of("schema", schema.toString())));
        return this;
    }

    /** Registers a schema of another type (PROTOBUF, JSON) under {@code id}. */
    SchemaRegistryStandIn register(int id, String schemaType, String schema) {
        answers.put(id, Json.write(Map.of("schemaType", schemaType, "schema", schema)));
        return this;
    }

    SchemaRegistryStandIn requireBasicAuth(String user, String password) {
        authorization = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Answers every request with {@code status} (0: answer as registered). */
    void answerEveryRequestWith(int status) {
        forcedStatus = status;
    }

    void answerAfter(Duration delay) {
        this.delay = delay;
    }

    int requests() {
        return requests.get();
    }

    /** {@code datum} in Confluent's wire format: magic byte 0, the schema id big-endian, then Avro binary. */
    static byte[] wireFormat(int id, Schema schema, Object datum) {
        var out = new ByteArrayOutputStream();
        out.writeBytes(ByteBuffer.allocate(5).put((byte) 0).putInt(id).array());
        try {
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<>(schema).write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.incrementAndGet();
            Thread.sleep(delay);
            String id = exchange.getRequestURI().getPath().substring("/schemas/ids/".length());
            String body = answers.get(Integer.parseInt(id));
            if (authorization != null && !authorization.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                send(exchange, 401, error(40101, "Unauthorized"));
            } else if (forcedStatus != 0) {
                send(exchange, forcedStatus, error(forcedStatus * 100, "Stand-in told to answer " + forcedStatus));
            } else if (body == null) {
                send(exchange, 404, error(40403, "Schema " + id + " not found"));
            } else {
                send(exchange, 200, body);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String error(int code, String message) {
        return "{\"error_code\":" + code + ",\"message\":" + Json.write(message) + "}";
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
