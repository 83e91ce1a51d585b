package io.millrace.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.millrace.core.expression.RenderLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Builds a {@link MillraceConfig} from, lowest precedence first: defaults, a YAML file, environment
 * variables ({@code MILLRACE_PARTITIONS} for {@code partitions}, {@code MILLRACE_KAFKA_SASL_JAAS_CONFIG} for
 * {@code kafka.sasl.jaas.config}) and command-line settings.
 * Keys are kebab-case; Kafka pass-through properties are {@code kafka.<property>}.
 */
public final class ConfigLoader {
    private static final Map<String, String> DEFAULTS = Map.ofEntries(
            Map.entry("bootstrap-servers", "localhost:9092"),
            Map.entry("topic-prefix", "millrace."),
            Map.entry("partitions", "2"),
            Map.entry("replication-factor", "1"),
            Map.entry("min-insync-replicas", "0"),
            Map.entry("processing-guarantee", MillraceConfig.EXACTLY_ONCE_V2),
            Map.entry("stream-threads", "2"),
            Map.entry("poll-ms", "5"),
            Map.entry("commit-interval-ms", "100"),
            Map.entry("eager-commit-max-percent", "50"),
            Map.entry("state-dir", ""),
            Map.entry("lease", "PT30S"),
            Map.entry("max-lost-attempts", "5"),
            Map.entry("retention", "P7D"),
            Map.entry("worker-group", "default"),
            Map.entry("worker-concurrency", "256"),
            Map.entry("task-max-duration", "PT1H"),
            Map.entry("jsonata-max-duration", "PT1M"),
            Map.entry("jsonata-max-depth", "5000"),
            Map.entry("worker-max-abandoned-tasks", "4"),
            Map.entry(TaskReach.HTTP_DENY, ""),
            Map.entry(TaskReach.HTTP_ALLOW, ""),
            Map.entry(TaskReach.KAFKA_ALLOW_ENGINE_CLUSTER, ""),
            Map.entry(TaskReach.KAFKA_ALLOW_JAAS_CONFIG, "false"),
            Map.entry("secrets-dir", ""),
            Map.entry(SecretSettings.ENCRYPTION_KEY, ""),
            Map.entry(SecretSettings.WEBHOOK_DROP_HEADERS, SecretSettings.DEFAULT_DROP_HEADERS),
            Map.entry("port", "8080"),
            Map.entry("management-port", "8081"),
            Map.entry("wait-timeout", "PT60S"),
            Map.entry("trigger-executor-backlog", "1000"),
            Map.entry("trigger-executor-delay", "PT0S"),
            Map.entry("data-dir", "data"),
            Map.entry("auth-tokens", ""),
            Map.entry("auth-tokens-file", ""),
            Map.entry("access-file", ""),
            Map.entry("max-request-bytes", "1048576"),
            Map.entry("max-request-header-bytes", "8192"),
            Map.entry("max-wait-requests", "1000"),
            Map.entry("max-webhook-wait-requests", "100"),
            Map.entry("webhook-rate-per-key", "10"),
            Map.entry("api-allowed-hosts", ""),
            Map.entry("cors-allowed-origins", ""),
            Map.entry("max-executor-backlog", "2000"),
            Map.entry("max-executor-delay", "PT0S"),
            Map.entry("max-record-bytes", "1000000"),
            Map.entry("max-decision-bytes", "16777216"),
            Map.entry("max-task-runs", "100000"),
            Map.entry("max-flowable-concurrency", "1000"),
            Map.entry("max-subflow-depth", "20"),
            Map.entry("max-queued-executions", "1000"),
            Map.entry("max-running-executions", "1000"),
            Map.entry(ExecutorLimits.EXPRESSION_MAX_TIME, "PT0.02S"),
            Map.entry(RenderLimits.MAX_STEPS, String.valueOf(RenderLimits.DEFAULTS.maxSteps())),
            Map.entry(RenderLimits.MAX_TIME, RenderLimits.DEFAULTS.maxTime().toString()),
            Map.entry(RenderLimits.MAX_STRING_CHARS, String.valueOf(RenderLimits.DEFAULTS.maxStringChars())),
            Map.entry(RenderLimits.MAX_COLLECTION_SIZE, String.valueOf(RenderLimits.DEFAULTS.maxCollectionSize())),
            Map.entry(RenderLimits.MAX_RENDERED_CHARS, String.valueOf(RenderLimits.DEFAULTS.maxRenderedChars())),
            Map.entry(RenderLimits.MAX_JQ_RESULTS, String.valueOf(RenderLimits.DEFAULTS.maxJqResults())));
    private static final Set<String> KEYS = DEFAULTS.keySet();
    private static final String KAFKA_VARIABLE = "MILLRACE_KAFKA_";
    /** MILLRACE_ variables read by the launcher or handled apart, not settings. */
    private static final Set<String> NOT_SETTINGS = Set.of("MILLRACE_CONFIG", "MILLRACE_KAFKA_PROPERTIES", "MILLRACE_JAVA_OPTS",
            "MILLRACE_JAR", "MILLRACE_KAFKA_PORT", "MILLRACE_CONFORMANCE_DIR");

    private ConfigLoader() {
    }

    /**
     * @param environment the process environment (only {@code MILLRACE_*} variables are read)
     * @param settings command-line settings, by kebab-case key
     * @param file a YAML file, or null
     */
    public static MillraceConfig load(Map<String, String> environment, Map<String, String> settings, Path file) {
        var values = new HashMap<String, Sourced>();
        DEFAULTS.forEach((k, v) -> values.put(k, new Sourced(v, "default")));
        if (file != null) {
            readFile(file).forEach((k, v) -> values.put(k, new Sourced(v, file.toString())));
        }
        String kafkaList = environment.get("MILLRACE_KAFKA_PROPERTIES");
        if (kafkaList != null && !kafkaList.isBlank()) {
            for (String pair : kafkaList.split(",")) {
                String[] kv = pair.split("=", 2);
                if (kv.length != 2) {
                    throw new ConfigException("Expected MILLRACE_KAFKA_PROPERTIES to be key=value pairs separated by commas, but found '" + pair + "'");
                }
                values.put("kafka." + kv[0].trim(), new Sourced(kv[1].trim(), "MILLRACE_KAFKA_PROPERTIES"));
            }
        }
        environment.forEach((name, value) -> {
            if (!name.startsWith("MILLRACE_") || NOT_SETTINGS.contains(name)) {
                return;
            }
            if (name.startsWith(KAFKA_VARIABLE)) {
                // Kafka's property names are lower case words between dots: MILLRACE_KAFKA_SASL_JAAS_CONFIG is
                // kafka.sasl.jaas.config, so a secret can come from the environment and stay out of the arguments
                values.put("kafka." + name.substring(KAFKA_VARIABLE.length()).toLowerCase(Locale.ROOT).replace('_', '.'),
                        new Sourced(value, name));
            } else {
                values.put(name.substring(9).toLowerCase(Locale.ROOT).replace('_', '-'), new Sourced(value, name));
            }
        });
        settings.forEach((k, v) -> values.put(k, new Sourced(v, "--" + k)));
        return build(values);
    }

    private static MillraceConfig build(Map<String, Sourced> values) {
        var kafka = new TreeMap<String, String>();
        values.forEach((key, value) -> {
            if (key.startsWith("kafka.")) {
                kafka.put(key.substring(6), value.value());
            } else if (!KEYS.contains(key)) {
                throw new ConfigException("Unknown setting '" + key + "' (from " + value.source() + "); known settings: "
                        + new TreeMap<>(DEFAULTS).keySet() + " and kafka.<property>");
            }
        });
        var reader = new Reader(values);
        String guarantee = reader.text("processing-guarantee").toLowerCase(Locale.ROOT);
        if (!guarantee.equals(MillraceConfig.EXACTLY_ONCE_V2) && !guarantee.equals(MillraceConfig.AT_LEAST_ONCE)) {
            throw reader.invalid("processing-guarantee", "exactly_once_v2 or at_least_once");
        }
        return new MillraceConfig(
                reader.text("bootstrap-servers"),
                reader.text("topic-prefix"),
                reader.positive("partitions"),
                (short) reader.positive("replication-factor"),
                guarantee,
                reader.positive("stream-threads"),
                reader.nonNegativeLong("poll-ms"),
                reader.nonNegativeLong("commit-interval-ms"),
                reader.percent("eager-commit-max-percent"),
                stateDir(reader),
                reader.duration("lease"),
                reader.positive("max-lost-attempts"),
                reader.duration("retention"),
                reader.text("worker-group"),
                reader.positive("worker-concurrency"),
                reader.port("port"),
                reader.port("management-port"),
                reader.duration("wait-timeout"),
                reader.nonNegativeLong("trigger-executor-backlog"),
                reader.durationOrZero("trigger-executor-delay"),
                Path.of(reader.text("data-dir")),
                kafka,
                new ApiAccess(tokens(reader), accessFile(reader), reader.positiveLong("max-request-bytes"),
                        reader.atLeast("max-request-header-bytes", 1024), reader.positive("max-wait-requests"),
                        reader.nonNegativeLong("max-executor-backlog"), reader.durationOrZero("max-executor-delay"),
                        allowedHosts(reader), origins(reader), reader.positive("max-webhook-wait-requests"),
                        reader.nonNegative("webhook-rate-per-key")),
                new ExecutorLimits(reader.atLeast("max-record-bytes", 65_536), reader.positiveLong("max-decision-bytes"),
                        reader.positive("max-task-runs"), reader.positive("max-flowable-concurrency"),
                        reader.positive("max-subflow-depth"), reader.nonNegative("max-running-executions"),
                        reader.nonNegative("max-queued-executions"), reader.duration(ExecutorLimits.EXPRESSION_MAX_TIME)),
                new WorkerLimits(reader.duration("task-max-duration"), reader.duration("jsonata-max-duration"),
                        reader.positive("jsonata-max-depth"), reader.nonNegative("worker-max-abandoned-tasks")),
                expressionLimits(reader),
                new TaskReach(reader.hostRules(TaskReach.HTTP_DENY), reader.hostRules(TaskReach.HTTP_ALLOW),
                        reader.isSet(TaskReach.KAFKA_ALLOW_ENGINE_CLUSTER)
                                && reader.bool(TaskReach.KAFKA_ALLOW_ENGINE_CLUSTER),
                        reader.bool(TaskReach.KAFKA_ALLOW_JAAS_CONFIG),
                        reader.isSet(TaskReach.KAFKA_ALLOW_ENGINE_CLUSTER)),
                optionalPath(reader, "secrets-dir"),
                minInsyncReplicas(reader),
                new SecretSettings(SecretSettings.cipher(values.get(SecretSettings.ENCRYPTION_KEY).value(),
                        values.get(SecretSettings.ENCRYPTION_KEY).source()),
                        SecretSettings.headers(values.get(SecretSettings.WEBHOOK_DROP_HEADERS).value())));
    }

    /** {@code min-insync-replicas}: 0, or at most {@code replication-factor}, else no write could ever be taken. */
    private static int minInsyncReplicas(Reader reader) {
        int min = reader.nonNegative("min-insync-replicas");
        int replicas = reader.positive("replication-factor");
        if (min > replicas) {
            throw reader.invalid("min-insync-replicas", "0 (the brokers' default) or at most replication-factor ("
                    + replicas + "): a topic with fewer replicas than it needs in sync takes no writes");
        }
        return min;
    }

    private static RenderLimits expressionLimits(Reader reader) {
        return new RenderLimits(reader.positiveLong(RenderLimits.MAX_STEPS), reader.duration(RenderLimits.MAX_TIME),
                reader.positive(RenderLimits.MAX_STRING_CHARS), reader.positive(RenderLimits.MAX_COLLECTION_SIZE),
                reader.positive(RenderLimits.MAX_RENDERED_CHARS), reader.positive(RenderLimits.MAX_JQ_RESULTS));
    }

    /**
     * {@code state-dir}, or {@code <data-dir>/state} when it is not set (or empty): each install keeps its Kafka Streams
     * state beside its other data, never in a folder that two installs on one machine would share.
     */
    private static Path stateDir(Reader reader) {
        String set = reader.values().get("state-dir").value();
        return set == null || set.isBlank() ? Path.of(reader.text("data-dir")).resolve("state") : Path.of(set.trim());
    }

    /** The path a setting names, or none when it is not set (or empty); whether it exists is for its user to check. */
    private static Optional<Path> optionalPath(Reader reader, String key) {
        String set = reader.values().get(key).value();
        return set == null || set.isBlank() ? Optional.empty() : Optional.of(Path.of(set.trim()));
    }

    /**
     * The tokens of {@code auth-tokens} (comma-separated) and of {@code auth-tokens-file} (one a line; blank lines and
     * lines starting with {@code #} ignored), read now: a missing or unreadable file stops the process. Messages never
     * show a token.
     */
    private static List<String> tokens(Reader reader) {
        var tokens = new LinkedHashSet<String>();
        Sourced listed = reader.values().get("auth-tokens");
        for (String token : listed.value().split(",")) {
            addToken(tokens, token.trim(), "auth-tokens (from " + listed.source() + ")");
        }
        Sourced file = reader.values().get("auth-tokens-file");
        if (!file.value().isBlank()) {
            Path path = Path.of(file.value().trim());
            List<String> lines;
            try {
                lines = Files.readAllLines(path);
            } catch (IOException e) {
                throw new ConfigException("Unable to read auth-tokens-file " + path + " (from " + file.source() + "): "
                        + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage()));
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (!line.startsWith("#")) {
                    addToken(tokens, line, "auth-tokens-file " + path + " line " + (i + 1));
                }
            }
        }
        return List.copyOf(tokens);
    }

    private static void addToken(Set<String> tokens, String token, String where) {
        if (token.isEmpty()) {
            return;
        }
        if (!token.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new ConfigException("Expected each token in " + where + " to be printable ASCII without spaces"
                    + " (as an Authorization: Bearer header carries it), but one is not");
        }
        if (token.length() < ApiAccess.MIN_TOKEN_CHARS) {
            throw new ConfigException("Expected each token in " + where + " to have at least "
                    + ApiAccess.MIN_TOKEN_CHARS + " characters (e.g. openssl rand -hex 32), but one has "
                    + token.length());
        }
        tokens.add(token);
    }

    /** {@code api-allowed-hosts}: host names (no port, no scheme), comma-separated, in lower case. */
    private static List<String> allowedHosts(Reader reader) {
        var hosts = new LinkedHashSet<String>();
        for (String host : reader.list("api-allowed-hosts")) {
            if (!host.matches("[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+]")) {
                throw reader.invalid("api-allowed-hosts", "host names or addresses without port or scheme, separated by"
                        + " commas (e.g. millrace.local)");
            }
            hosts.add(host.toLowerCase(Locale.ROOT));
        }
        return List.copyOf(hosts);
    }

    /**
     * {@code cors-allowed-origins}: origins ({@code scheme://host[:port]}), comma-separated; {@code *} is refused: it
     * would let every web page read the API's answers.
     */
    private static List<String> origins(Reader reader) {
        var origins = new LinkedHashSet<String>();
        for (String origin : reader.list("cors-allowed-origins")) {
            if (!origin.matches("https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\\[[0-9A-Fa-f:.]+](:[0-9]{1,5})?")) {
                throw reader.invalid("cors-allowed-origins", "origins such as https://ui.example.com or"
                        + " http://localhost:3000, separated by commas (no path, no '*')");
            }
            origins.add(origin.toLowerCase(Locale.ROOT));
        }
        return List.copyOf(origins);
    }

    /** The {@code access-file}, which must be readable now; the gateway reads and watches it. */
    private static Path accessFile(Reader reader) {
        Sourced file = reader.values().get("access-file");
        if (file.value().isBlank()) {
            return null;
        }
        Path path = Path.of(file.value().trim());
        if (!Files.isReadable(path)) {
            throw new ConfigException("Unable to read access-file " + path + " (from " + file.source() + "): "
                    + (Files.exists(path) ? "not readable" : "no such file"));
        }
        return path;
    }

    private static Map<String, String> readFile(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        } catch (IOException e) {
            throw new ConfigException("Unable to read the configuration file " + file + ": " + e.getMessage());
        }
        var flat = new LinkedHashMap<String, String>();
        if (root == null || root.isNull()) {
            return flat;
        }
        if (!root.isObject()) {
            throw new ConfigException("Expected the configuration file " + file + " to be a YAML mapping");
        }
        root.fields().forEachRemaining(e -> {
            if (e.getKey().equals("kafka") && e.getValue().isObject()) {
                e.getValue().fields().forEachRemaining(k -> flat.put("kafka." + k.getKey(), k.getValue().asText()));
            } else {
                flat.put(e.getKey(), e.getValue().asText());
            }
        });
        return flat;
    }

    private record Sourced(String value, String source) {
    }

    private record Reader(Map<String, Sourced> values) {
        String text(String key) {
            String value = values.get(key).value();
            if (value == null || value.isBlank()) {
                throw invalid(key, "a non-empty value");
            }
            return value.trim();
        }

        int positive(String key) {
            return checked(key, Integer::parseInt, value -> value > 0, "a positive whole number");
        }

        int nonNegative(String key) {
            return checked(key, Integer::parseInt, value -> value >= 0, "a whole number of 0 or more");
        }

        int percent(String key) {
            return checked(key, Integer::parseInt, value -> value >= 0 && value <= 100, "a percentage from 0 to 100");
        }

        int port(String key) {
            return checked(key, Integer::parseInt, value -> value >= 0 && value <= 65535, "a port number from 0 to 65535");
        }

        int atLeast(String key, int min) {
            return checked(key, Integer::parseInt, value -> value >= min, "a whole number of " + min + " or more");
        }

        long positiveLong(String key) {
            return checked(key, Long::parseLong, value -> value > 0, "a positive whole number");
        }

        long nonNegativeLong(String key) {
            return checked(key, Long::parseLong, value -> value >= 0, "a whole number of 0 or more");
        }

        /** The value parsed and accepted, or an error naming the key, its source and what was expected. */
        private <T> T checked(String key, Function<String, T> parse, Predicate<T> accept,
                String expected) {
            try {
                T value = parse.apply(text(key));
                if (accept.test(value)) {
                    return value;
                }
            } catch (NumberFormatException | DateTimeParseException ignored) {
                // reported below
            }
            throw invalid(key, expected);
        }

        /** The comma-separated values of {@code key}, trimmed, blanks left out; none when it is empty. */
        List<String> list(String key) {
            String value = values.get(key).value();
            return value == null ? List.of()
                    : java.util.Arrays.stream(value.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
        }

        /** Whether {@code key} has a value other than blank. */
        boolean isSet(String key) {
            String value = values.get(key).value();
            return value != null && !value.isBlank();
        }

        boolean bool(String key) {
            String value = text(key).toLowerCase(Locale.ROOT);
            if (!value.equals("true") && !value.equals("false")) {
                throw invalid(key, "true or false");
            }
            return value.equals("true");
        }

        /** Comma-separated {@link HostRules}; empty: none. */
        HostRules hostRules(String key) {
            Sourced value = values.get(key);
            try {
                return value.value() == null ? HostRules.NONE : HostRules.parse(key, value.value());
            } catch (ConfigException e) {
                throw new ConfigException(e.getMessage() + " (from " + value.source() + ")");
            }
        }

        Duration duration(String key) {
            return checked(key, Duration::parse, value -> !value.isNegative() && !value.isZero(),
                    "a positive ISO-8601 duration such as PT30S");
        }

        Duration durationOrZero(String key) {
            return checked(key, Duration::parse, value -> !value.isNegative(),
                    "an ISO-8601 duration such as PT0.5S, or PT0S for none");
        }

        ConfigException invalid(String key, String expected) {
            Sourced value = values.get(key);
            return new ConfigException("Expected " + key + " to be " + expected + ", but got '" + value.value()
                    + "' (from " + value.source() + ")");
        }
    }
}
