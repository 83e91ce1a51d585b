package io.millrace.triggers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.core.cache.LruCache;
import io.millrace.serdes.Json;
import io.millrace.triggers.Deserializers.LookupException;
import io.millrace.triggers.Deserializers.SerdeException;
import io.millrace.config.HostRules;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.HttpTargets;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
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
 *
 * <p>A registry is reached as an {@code http.Request} is ({@link HttpTargets}, docs/security.md): its name is looked
 * up once for each request, every address checked, and the request sent to the checked address, with the name in the
 * Host header and, over TLS, as the server name; redirects are never followed. A refused registry is a
 * {@link LookupException}: a name that resolves elsewhere later is read again then. {@link #refusal} says at a
 * trigger's start whether its registry is refused, and refuses a URL with a query or fragment, which would let the flow
 * choose the path asked.
 */
final class SchemaRegistries implements AutoCloseable {
    static final int MAX_SCHEMAS = 1_000;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_QUOTED = 200;

    static final String URL = "schema.registry.url";

    private final HttpTargets targets;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final LruCache<Key, Answer> answers;

    /** As standalone reaches registries (this machine allowed), with the default settings: for tests. */
    SchemaRegistries() {
        this(HttpTargets.forStandalone(MillraceConfig.defaults()));
    }

    SchemaRegistries(HttpTargets targets) {
        this(MAX_SCHEMAS, CONNECT_TIMEOUT, REQUEST_TIMEOUT, targets);
    }

    SchemaRegistries(int maxSchemas, Duration connectTimeout, Duration requestTimeout, HttpTargets targets) {
        this.targets = targets;
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.answers = new LruCache<>(maxSchemas);
    }

    /**
     * Why the registry {@code serdeProperties} name may not be asked, if it may not: a URL that does not read, is not
     * http or https with a host, has a query or fragment, or a target {@link HttpTargets} refuses. A name that does not
     * resolve now is not refused: each request checks again.
     */
    Optional<String> refusal(Map<?, ?> serdeProperties) {
        Object url = serdeProperties == null ? null : serdeProperties.get(URL);
        String property = "property 'serdeProperties." + URL + "' is refused: ";
        if (url == null) {
            return Optional.of("Expected serdeProperties to name the schema registry of AVRO records as '" + URL + "'");
        }
        URI uri;
        try {
            uri = new URI(url.toString().trim());
        } catch (URISyntaxException e) {
            return Optional.of(property + "it is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            return Optional.of(property + "it must be an http or https URL with a host");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null || url.toString().contains("?")
                || url.toString().contains("#")) {
            return Optional.of(property + "it has a query or fragment ('?' or '#'), which would change the path the"
                    + " registry is asked at");
        }
        try {
            targets.check(uri);
        } catch (HttpTargets.Refused e) {
            return Optional.of(property + e.getMessage());
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
        return Optional.empty();
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
            return new Registry(URI.create(url.toString().trim().replaceAll("/+$", "")), userInfo == null ? null
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
        HttpTargets.Target target;
        try {
            target = targets.check(URI.create(registry.url() + "/schemas/ids/" + id));
        } catch (HttpTargets.Refused e) {
            throw new LookupException("Expected schema registry " + registry + " to be asked for schema id " + id
                    + ", but " + e.getMessage());
        } catch (UnknownHostException e) {
            throw new LookupException("Expected schema registry " + registry + " to answer for schema id " + id
                    + ", but its host has no address");
        }
        HttpResponse<String> response;
        // no redirects: they would carry the credentials elsewhere, unchecked
        try (HttpClient http = client(target)) {
            var request = HttpRequest.newBuilder(target.direct())
                    .timeout(requestTimeout)
                    .header("Host", target.host())
                    .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
            if (registry.authorization() != null) {
                request.header("Authorization", registry.authorization());
            }
            response = http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IllegalArgumentException e) {
            throw new LookupException("Expected to ask schema registry " + registry + " at " + target.address()
                    .getHostAddress() + ", but the request cannot be made (" + e.getMessage() + "); Java's HTTP client"
                    + " must be let set the Host header: -Djdk.httpclient.allowRestrictedHeaders=host, as the launcher"
                    + " sets");
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

    /** A client of one request: over TLS, it names the registry's host (SNI) so its certificate is checked. */
    private HttpClient client(HttpTargets.Target target) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER);
        String host = target.uri().getHost();
        if (target.uri().getScheme().equalsIgnoreCase("https") && HostRules.literal(host) == null) {
            try {
                SSLParameters tls = SSLContext.getDefault().getDefaultSSLParameters();
                tls.setServerNames(List.of(new SNIHostName(HostRules.name(host))));
                builder.sslParameters(tls);
            } catch (NoSuchAlgorithmException | IllegalArgumentException e) {
                // no server name: the certificate is checked against the address, and the request fails
            }
        }
        return builder.build();
    }

    @Override
    public void close() {
        // each request's client is closed after it
    }
}
