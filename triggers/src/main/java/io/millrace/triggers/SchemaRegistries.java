package io.millrace.triggers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.core.cache.LruCache;
import io.millrace.serdes.Json;
import io.millrace.triggers.Deserializers.LookupException;
import io.millrace.triggers.Deserializers.SerdeException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * The Confluent-compatible schema registries AVRO triggers read their writer schemas from, through the registries'
 * REST API ({@code GET {url}/schemas/ids/{id}}, answered with {@code {"schema": "...", "schemaType": "AVRO"}}). One
 * HTTP client and one bounded, least-recently-used cache of parsed schemas by registry and id, shared by the triggers
 * of the role: an id names one schema forever, so an entry never goes stale, and a record asks the registry only for
 * an id no record asked for recently.
 *
 * <p>A registry that gives no usable answer (unreachable, slower than the timeouts, any status but 200, an answer
 * without a schema) throws {@link LookupException}: the record is not at fault, the trigger reads it again later. A
 * registry that answers with a schema records cannot be read with here (not Avro, not parsable, referring to other
 * schemas) makes each record written with it a serde error; that answer is cached too.
 */
final class SchemaRegistries implements AutoCloseable {
    static final int MAX_SCHEMAS = 1_000;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_QUOTED = 200;

    private final HttpClient http;
    private final Duration requestTimeout;
    private final LruCache<Key, Answer> answers;

    SchemaRegistries() {
        this(MAX_SCHEMAS, CONNECT_TIMEOUT, REQUEST_TIMEOUT);
    }

    SchemaRegistries(int maxSchemas, Duration connectTimeout, Duration requestTimeout) {
        // no redirects: they would carry the credentials elsewhere
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
        this.requestTimeout = requestTimeout;
        this.answers = new LruCache<>(maxSchemas);
    }

    /** One registry: its URL, and the HTTP Basic credentials it is asked with, if any. */
    record Registry(URI url, String authorization) {
        /** The registry of {@code serdeProperties}, as {@code TriggerParser} checked them (Confluent's names). */
        static Registry of(Map<?, ?> serdeProperties) {
            Object url = serdeProperties == null ? null : serdeProperties.get("schema.registry.url");
            if (url == null) {
                throw new IllegalArgumentException("Expected serdeProperties to name the schema registry of AVRO records"
                        + " as 'schema.registry.url'");
            }
            Object userInfo = serdeProperties.get("basic.auth.user.info");
            return new Registry(URI.create(url.toString().replaceAll("/+$", "")), userInfo == null ? null
                    : "Basic " + Base64.getEncoder().encodeToString(userInfo.toString().getBytes(StandardCharsets.UTF_8)));
        }

        /** The URL only: never the credentials. */
        @Override
        public String toString() {
            return url.toString();
        }
    }

    private record Key(Registry registry, int id) {
    }

    /** What a registry holds under an id: a schema to read records with, or why records written with it cannot be. */
    private record Answer(Schema schema, String refusal) {
    }

    /** The writer schema {@code id} names in {@code registry}, from the cache when it has it. */
    Schema schema(Registry registry, int id) throws SerdeException, LookupException {
        Key key = new Key(registry, id);
        Answer answer = answers.get(key);
        if (answer == null) {
            answer = answer(fetch(registry, id), registry, id);
            answers.put(key, answer);
        }
        if (answer.refusal() != null) {
            throw new SerdeException(answer.refusal());
        }
        return answer.schema();
    }

    private String fetch(Registry registry, int id) throws LookupException {
        var request = HttpRequest.newBuilder(URI.create(registry.url() + "/schemas/ids/" + id))
                .timeout(requestTimeout)
                .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
        if (registry.authorization() != null) {
            request.header("Authorization", registry.authorization());
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new LookupException("Expected schema registry " + registry + " to answer for schema id " + id
                    + ", but it is unreachable: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LookupException("Interrupted while asking schema registry " + registry + " for schema id " + id);
        }
        if (response.statusCode() != 200) {
            throw new LookupException("Expected schema registry " + registry + " to answer schema id " + id
                    + " with HTTP 200, but it answered " + response.statusCode() + ": " + quoted(response.body()));
        }
        return response.body();
    }

    private static Answer answer(String body, Registry registry, int id) throws LookupException {
        JsonNode answer;
        try {
            answer = Json.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            answer = null;
        }
        if (answer == null || !answer.path("schema").isTextual()) {
            throw new LookupException("Expected schema registry " + registry + " to answer schema id " + id
                    + " with a JSON object with a 'schema', but it answered " + quoted(body));
        }
        String type = answer.path("schemaType").asText("AVRO");
        if (!type.equals("AVRO")) {
            return new Answer(null, "Expected schema id " + id + " of " + registry + " to be an AVRO schema, but it is "
                    + type);
        }
        if (!answer.path("references").isEmpty()) {
            return new Answer(null, "Schema id " + id + " of " + registry + " refers to other schemas, which AVRO "
                    + "triggers do not read yet");
        }
        try {
            return new Answer(new Schema.Parser().parse(answer.path("schema").asText()), null);
        } catch (RuntimeException e) {
            return new Answer(null, "Schema id " + id + " of " + registry + " is not an Avro schema: " + e.getMessage());
        }
    }

    private static String quoted(String body) {
        String text = body == null ? "" : body.strip();
        return "'" + (text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) + "…" : text) + "'";
    }

    @Override
    public void close() {
        http.close();
    }
}
