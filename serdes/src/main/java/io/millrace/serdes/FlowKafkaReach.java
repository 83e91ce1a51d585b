package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import io.millrace.config.TaskReach;
import java.io.IOException;
import java.io.StreamTokenizer;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a flow's own Kafka clients (a Produce task's producer; a Kafka trigger's consumer and dead-letter producer) may
 * be configured with and reach; see docs/security.md. Refused in a flow's {@code properties}:
 * <ul>
 * <li>{@code config.providers} and every {@code config.providers.*} key: no setting allows them;</li>
 * <li>keys that make the client load Java classes: any key ending in {@code .class} or {@code .classes}, and
 *     {@link #CLASS_KEYS}: no setting allows them;</li>
 * <li>{@code sasl.kerberos.kinit.cmd}, a command the client runs: no setting allows it;</li>
 * <li>a {@code SASL_*} {@code security.protocol} without {@code sasl.jaas.config}, which would log in with the JVM's
 *     own JAAS file: no setting allows it;</li>
 * <li>{@code sasl.jaas.config} naming a login module other than Kafka's {@link #KAFKA_LOGIN_MODULES}, unless
 *     {@code task-kafka-allow-jaas-config};</li>
 * <li>{@code bootstrap.servers} naming a broker of the engine's {@code bootstrap-servers} (by name, address, or as this
 *     machine), unless {@code task-kafka-allow-engine-cluster}; even then, topics and consumer groups under the
 *     engine's topic prefix.</li>
 * </ul>
 * A trigger's {@code topicPattern} is not refused: it subscribes as {@link #subscription} encloses it, never matching a
 * topic under the engine's prefix.
 * Each refusal is a message that names the property and the setting that would allow it, if any.
 */
public final class FlowKafkaReach {
    /** Client keys whose values are Java class names, though their names do not end in .class or .classes. */
    static final Set<String> CLASS_KEYS = Set.of("key.serializer", "value.serializer", "key.deserializer",
            "value.deserializer", "metric.reporters", "partition.assignment.strategy", "security.providers");
    /** The login modules Kafka ships (PLAIN, SCRAM, OAUTHBEARER): they load no class a flow names. */
    static final Set<String> KAFKA_LOGIN_MODULES = Set.of("org.apache.kafka.common.security.plain.PlainLoginModule",
            "org.apache.kafka.common.security.scram.ScramLoginModule",
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule");
    private static final String JAAS = "sasl.jaas.config";
    private static final String PROTOCOL = "security.protocol";
    private static final String KINIT = "sasl.kerberos.kinit.cmd";
    private static final String BOOTSTRAP = "bootstrap.servers";
    /** The most brokers a flow's {@code bootstrap.servers} may list: each is looked up when it is checked. */
    public static final int MAX_BROKERS = 20;

    private final List<BrokerAddress> engineBrokers;
    private final String topicPrefix;
    private final TaskReach reach;

    private FlowKafkaReach(List<BrokerAddress> engineBrokers, String topicPrefix, TaskReach reach) {
        this.engineBrokers = engineBrokers;
        this.topicPrefix = topicPrefix;
        this.reach = reach;
    }

    public static FlowKafkaReach of(MillraceConfig config) {
        return new FlowKafkaReach(BrokerAddress.list(config.bootstrapServers()), config.topicPrefix(),
                config.taskReach());
    }

    /** The first of the flow's client settings that is refused; empty when none is. */
    public Optional<String> refusedSetting(Map<?, ?> properties) {
        for (Map.Entry<?, ?> setting : properties.entrySet()) {
            String key = String.valueOf(setting.getKey()).trim().toLowerCase(Locale.ROOT);
            String property = "property 'properties." + setting.getKey() + "' is refused: ";
            if (key.equals("config.providers") || key.startsWith("config.providers.")) {
                return Optional.of(property + "Kafka's config providers would read this machine's files or environment,"
                        + " which no setting allows a flow to");
            }
            if (key.endsWith(".class") || key.endsWith(".classes") || CLASS_KEYS.contains(key)) {
                return Optional.of(property + "it makes the Kafka client load Java classes, which no setting allows a"
                        + " flow to");
            }
            if (key.equals(KINIT)) {
                return Optional.of(property + "it names a command the Kafka client runs on this machine, which no"
                        + " setting allows a flow to");
            }
            if (key.equals(PROTOCOL) && String.valueOf(setting.getValue()).trim().toUpperCase(Locale.ROOT)
                    .startsWith("SASL_") && String.valueOf(properties.get(JAAS) == null ? "" : properties.get(JAAS))
                    .isBlank()) {
                return Optional.of(property + "SASL needs 'properties." + JAAS + "' too: without it, the Kafka client"
                        + " would log in with this machine's own JAAS file (java.security.auth.login.config), the"
                        + " engine's credentials");
            }
            if (key.equals(JAAS) && !reach.kafkaAllowAnyLoginModule()) {
                Optional<String> module = foreignLoginModule(String.valueOf(setting.getValue()));
                if (module.isPresent()) {
                    return Optional.of(property + module.get() + "; a flow may name only Kafka's PlainLoginModule,"
                            + " ScramLoginModule and OAuthBearerLoginModule unless the operator sets "
                            + TaskReach.KAFKA_ALLOW_JAAS_CONFIG + "=true");
                }
            }
        }
        Object servers = properties.get(BOOTSTRAP);
        int brokers = servers == null ? 0 : BrokerAddress.entries(String.valueOf(servers));
        if (brokers > MAX_BROKERS) {
            return Optional.of("property 'properties." + BOOTSTRAP + "' is refused: it lists " + brokers + " brokers,"
                    + " more than the " + MAX_BROKERS + " a flow may give (a client needs only a few to find them"
                    + " all)");
        }
        Optional<String> engine = servers == null ? Optional.empty() : engineBroker(String.valueOf(servers));
        if (engine.isPresent() && !reach.kafkaAllowEngineCluster()) {
            return Optional.of("property 'properties." + BOOTSTRAP + "' is refused: '" + engine.get() + "' is a broker"
                    + " of the engine's own Kafka cluster, which a flow may reach only if the operator sets "
                    + TaskReach.KAFKA_ALLOW_ENGINE_CLUSTER + "=true");
        }
        return Optional.empty();
    }

    /** Refused when the client is on the engine's cluster and the topic is under the engine's prefix. */
    public Optional<String> refusedTopic(Map<?, ?> properties, String property, String topic) {
        if (topic == null || !topic.startsWith(topicPrefix) || !onEngineCluster(properties)) {
            return Optional.empty();
        }
        return Optional.of("property '" + property + "' is refused: topic '" + topic + "' is under the engine's topic"
                + " prefix '" + topicPrefix + "' on the engine's own cluster, which no setting opens to a flow");
    }

    /**
     * The pattern a Kafka trigger subscribes with: the flow's {@code topicPattern}, never matching a topic under the
     * engine's prefix ({@code (?!prefix)(?:pattern)}, matched against whole topic names as Kafka matches). The
     * engine's topics are more than a list could name (each group's task topics, Kafka Streams' changelogs), and its
     * cluster may be reached through a broker its {@code bootstrap-servers} does not list, so this holds on every
     * cluster.
     *
     * @throws PatternSyntaxException when the flow's pattern does not read, alone or so enclosed (a comment or an
     *     unclosed quotation in it would swallow the closing parenthesis)
     */
    public Pattern subscription(String pattern) {
        Pattern.compile(pattern);
        return Pattern.compile("(?!" + Pattern.quote(topicPrefix) + ")(?:" + pattern + ")");
    }

    /** Refused when the client is on the engine's cluster and the group is under the engine's prefix, as its are. */
    public Optional<String> refusedGroup(Map<?, ?> properties, String property, String group) {
        if (group == null || !group.startsWith(topicPrefix) || !onEngineCluster(properties)) {
            return Optional.empty();
        }
        return Optional.of("property '" + property + "' is refused: consumer group '" + group + "' is under the"
                + " engine's prefix '" + topicPrefix + "', as the engine's own groups are, on the engine's own cluster, which no"
                + " setting opens to a flow");
    }

    private boolean onEngineCluster(Map<?, ?> properties) {
        Object servers = properties.get(BOOTSTRAP);
        return servers != null && engineBroker(String.valueOf(servers)).isPresent();
    }

    /** The login module of a JAAS configuration that is not Kafka's, or why it does not read; empty when all are. */
    private static Optional<String> foreignLoginModule(String jaas) {
        List<String> modules;
        try {
            modules = loginModules(jaas);
        } catch (IllegalArgumentException e) {
            return Optional.of("it does not read as a JAAS configuration (" + e.getMessage() + ")");
        }
        return modules.stream().filter(module -> !KAFKA_LOGIN_MODULES.contains(module)).findFirst()
                .map(module -> "it names the login module " + module);
    }

    /**
     * The login modules of a JAAS configuration, tokenized as Kafka tokenizes {@code sasl.jaas.config}: each entry
     * ({@code <module> <flag> key=value ... ;}) starts with its module's class name, a word or a quoted string.
     */
    private static List<String> loginModules(String jaas) {
        var tokens = new StreamTokenizer(new StringReader(jaas));
        tokens.slashSlashComments(true);
        tokens.slashStarComments(true);
        tokens.wordChars('-', '-');
        tokens.wordChars('_', '_');
        tokens.wordChars('$', '$');
        var modules = new ArrayList<String>();
        try {
            while (tokens.nextToken() != StreamTokenizer.TT_EOF) {
                if (tokens.ttype != StreamTokenizer.TT_WORD && tokens.ttype != '"') {
                    throw new IllegalArgumentException("expected a login module's class name");
                }
                modules.add(tokens.sval);
                while (tokens.nextToken() != ';') {
                    if (tokens.ttype == StreamTokenizer.TT_EOF) {
                        throw new IllegalArgumentException("expected ';' after the options of " + modules.getLast());
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e); // a StringReader does not fail
        }
        if (modules.isEmpty()) {
            throw new IllegalArgumentException("no login module");
        }
        return modules;
    }

    /** The first of the flow's brokers that is one of the engine's: the same name, a shared address, or both local. */
    private Optional<String> engineBroker(String servers) {
        var lookups = new HashMap<String, List<InetAddress>>();
        for (String flowEntry : servers.split(",")) {
            Optional<BrokerAddress> flowBroker = BrokerAddress.parse(flowEntry);
            for (BrokerAddress engineBroker : engineBrokers) {
                if (flowBroker.isPresent() && sameBroker(flowBroker.get(), engineBroker, lookups)) {
                    return Optional.of(flowEntry.trim());
                }
            }
        }
        return Optional.empty();
    }

    /** The same host and port number, or both on this machine, or sharing an address, at the same port number. */
    private static boolean sameBroker(BrokerAddress a, BrokerAddress b, Map<String, List<InetAddress>> lookups) {
        if (a.port() != b.port()) {
            return false;
        }
        if (a.host().equals(b.host())) {
            return true;
        }
        List<InetAddress> addressesA = lookups.computeIfAbsent(a.host(), FlowKafkaReach::addresses);
        List<InetAddress> addressesB = lookups.computeIfAbsent(b.host(), FlowKafkaReach::addresses);
        boolean bothLocal = addressesA.stream().anyMatch(HttpTargets::thisMachine)
                && addressesB.stream().anyMatch(HttpTargets::thisMachine);
        return bothLocal || addressesA.stream().anyMatch(addressesB::contains);
    }

    private static List<InetAddress> addresses(String host) {
        try {
            return List.of(InetAddress.getAllByName(host));
        } catch (UnknownHostException | SecurityException e) {
            return List.of(); // a broker that does not resolve is reached by no client
        }
    }
}
