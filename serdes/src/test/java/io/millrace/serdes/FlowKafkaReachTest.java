package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.Test;

class FlowKafkaReachTest {
    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"u\" password=\"p\";";

    private static FlowKafkaReach reach(String... settings) {
        var all = new HashMap<String, String>(Map.of("bootstrap-servers", "localhost:19092", "topic-prefix", "engine."));
        for (int i = 0; i < settings.length; i += 2) {
            all.put(settings[i], settings[i + 1]);
        }
        MillraceConfig config = ConfigLoader.load(Map.of(), all, null);
        return FlowKafkaReach.of(config);
    }

    private static Map<String, String> client(String... more) {
        var properties = new HashMap<String, String>(Map.of("bootstrap.servers", "kafka.example:9092"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return properties;
    }

    @Test
    void shouldRefuseConfigProvidersAndEveryKeyThatLoadsAClass() {
        // given
        FlowKafkaReach reach = reach();

        // then
        assertThat(reach.refusedSetting(client("config.providers", "file"))).hasValue("property"
                + " 'properties.config.providers' is refused: Kafka's config providers would read this machine's files"
                + " or environment, which no setting allows a flow to");
        assertThat(reach.refusedSetting(client("config.providers.file.class", "x"))).isPresent();
        for (String key : new String[] {"interceptor.classes", "sasl.login.callback.handler.class", "partitioner.class",
                "Key.Serializer", "value.deserializer", "metric.reporters", "partition.assignment.strategy",
                "security.providers", "ssl.engine.factory.class", "sasl.oauthbearer.jwt.retriever.class"}) {
            assertThat(reach.refusedSetting(client(key, "com.example.Evil"))).as(key).hasValue("property 'properties."
                    + key + "' is refused: it makes the Kafka client load Java classes, which no setting allows a flow to");
        }
        assertThat(reach.refusedSetting(client("acks", "all", "linger.ms", "5", "security.protocol", "SASL_SSL",
                "sasl.jaas.config", PLAIN))).isEmpty();
    }

    @Test
    void shouldAcceptKafkasOwnLoginModulesOnlyUnlessTheOperatorAllowsAny() {
        // given
        String jndi = "com.sun.security.auth.module.JndiLoginModule required user.provider.url=\"ldap://x\";";

        // then
        assertThat(reach().refusedSetting(client("sasl.jaas.config", PLAIN))).isEmpty();
        assertThat(reach().refusedSetting(client("sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";")))
                .isEmpty();
        assertThat(reach().refusedSetting(client("sasl.jaas.config", jndi))).hasValue("property"
                + " 'properties.sasl.jaas.config' is refused: it names the login module"
                + " com.sun.security.auth.module.JndiLoginModule; a flow may name only Kafka's PlainLoginModule,"
                + " ScramLoginModule and OAuthBearerLoginModule unless the operator sets task-kafka-allow-jaas-config=true");
        assertThat(reach().refusedSetting(client("sasl.jaas.config", PLAIN + " " + jndi))).isPresent();
        assertThat(reach().refusedSetting(client("sasl.jaas.config", "not jaas at all")))
                .hasValueSatisfying(why -> assertThat(why).contains("does not read as a JAAS configuration"));
        assertThat(reach("task-kafka-allow-jaas-config", "true").refusedSetting(client("sasl.jaas.config", jndi)))
                .isEmpty();
    }

    @Test
    void shouldRefuseTheEnginesClusterByNameOrAddressUnlessTheOperatorAllowsIt() {
        // given
        FlowKafkaReach reach = reach();
        FlowKafkaReach allowing = reach("task-kafka-allow-engine-cluster", "true");

        // then
        assertThat(reach.refusedSetting(client("bootstrap.servers", "other:9092, LOCALHOST:19092"))).hasValue("property"
                + " 'properties.bootstrap.servers' is refused: 'LOCALHOST:19092' is a broker of the engine's own Kafka"
                + " cluster, which a flow may reach only if the operator sets task-kafka-allow-engine-cluster=true");
        assertThat(reach.refusedSetting(client("bootstrap.servers", "127.0.0.1:19092"))).isPresent();
        assertThat(reach.refusedSetting(client("bootstrap.servers", "SASL_SSL://127.0.0.1:19092"))).isPresent();
        assertThat(reach.refusedSetting(client("bootstrap.servers", "localhost:19093"))).isEmpty();
        assertThat(reach.refusedSetting(client("bootstrap.servers", "localhost:1909"))).isEmpty();
        assertThat(allowing.refusedSetting(client("bootstrap.servers", "localhost:19092"))).isEmpty();
    }

    @Test
    void shouldRefuseSaslWithoutItsOwnJaasConfigAndAKinitCommand() {
        // then: without sasl.jaas.config, Kafka would log in with the JVM's JAAS file, the engine's
        for (String protocol : new String[] {"SASL_SSL", "sasl_plaintext", " SASL_PLAINTEXT "}) {
            assertThat(reach().refusedSetting(client("security.protocol", protocol))).as(protocol).hasValue("property"
                    + " 'properties.security.protocol' is refused: SASL needs 'properties.sasl.jaas.config' too:"
                    + " without it, the Kafka client would log in with this machine's own JAAS file"
                    + " (java.security.auth.login.config), the engine's credentials");
            assertThat(reach().refusedSetting(client("security.protocol", protocol, "sasl.jaas.config", " ")))
                    .as(protocol).isPresent();
            assertThat(reach().refusedSetting(client("security.protocol", protocol, "sasl.jaas.config", PLAIN)))
                    .as(protocol).isEmpty();
        }
        assertThat(reach().refusedSetting(client("security.protocol", "SSL"))).isEmpty();
        assertThat(reach().refusedSetting(client("sasl.kerberos.kinit.cmd", "/bin/sh -c id"))).hasValue("property"
                + " 'properties.sasl.kerberos.kinit.cmd' is refused: it names a command the Kafka client runs on this"
                + " machine, which no setting allows a flow to");
    }

    @Test
    void shouldRefuseMoreBrokersThanAFlowMayGive() {
        // given
        String many = String.join(",", java.util.Collections.nCopies(21, "kafka.example:9092"));
        String enough = String.join(",", java.util.Collections.nCopies(20, "kafka.example:9092"));

        // then
        assertThat(reach().refusedSetting(client("bootstrap.servers", many))).hasValue("property"
                + " 'properties.bootstrap.servers' is refused: it lists 21 brokers, more than the 20 a flow may give"
                + " (a client needs only a few to find them all)");
        assertThat(reach().refusedSetting(client("bootstrap.servers", enough))).isEmpty();
    }

    @Test
    void shouldReadBrokerPortsAsKafkaDoesNotAsText() {
        // given: the engine's broker written another way than the flow writes it
        FlowKafkaReach reach = reach("bootstrap-servers", "SASL_SSL://Kafka-0.Engine.:09092");

        // then: Kafka connects to port 9092 for each of these
        for (String servers : new String[] {"kafka-0.engine:9092", "kafka-0.engine:09092", "KAFKA-0.ENGINE:9092",
                "kafka-0.engine.:9092", "PLAINTEXT://kafka-0.engine:0009092", "other:1, SSL://kafka-0.engine:9092"}) {
            assertThat(reach.refusedSetting(client("bootstrap.servers", servers))).as(servers)
                    .hasValueSatisfying(why -> assertThat(why).contains("is a broker of the engine's own Kafka"));
        }
        assertThat(reach.refusedSetting(client("bootstrap.servers", "kafka-0.engine:9093"))).isEmpty();
        assertThat(reach.refusedSetting(client("bootstrap.servers", "kafka-0.engine:90920"))).isEmpty();
    }

    @Test
    void shouldSubscribeATopicPatternToNoTopicUnderTheEnginesPrefix() {
        // given: the engine's real topic names, Kafka Streams' changelogs and any group's task topics among them
        FlowKafkaReach reach = reach();
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("topic-prefix", "engine."), null);
        var engineTopics = new java.util.ArrayList<String>(List.of("engine.executor-executor-executions-changelog",
                "engine.triggers-schedules-changelog", "engine.tasks.any-group", "engine.commands"));
        Topics.of(config).executorTopics(List.of("g1")).forEach(topic -> engineTopics.add(topic.name()));

        // then
        for (String pattern : List.of(".*", "engine\\..*", "(?i)ENGINE.*", ".*changelog", "e.*|orders",
                "[a-z.]+-?.*")) {
            Pattern subscription = reach.subscription(pattern);
            assertThat(engineTopics).as(pattern).noneMatch(topic -> subscription.matcher(topic).matches());
        }
        assertThat(reach.subscription(".*").matcher("orders").matches()).isTrue();
        assertThat(reach.subscription("orders-.*|eng.*").matcher("engine-orders").matches()).isTrue();
        assertThatThrownBy(() -> reach.subscription("(?x).*#")).isInstanceOf(PatternSyntaxException.class);
        assertThatThrownBy(() -> reach.subscription(".*\\Q")).isInstanceOf(PatternSyntaxException.class);
        assertThatThrownBy(() -> reach.subscription("a)|(.*")).isInstanceOf(PatternSyntaxException.class);
    }

    @Test
    void shouldKeepTheEnginesTopicsAndGroupsClosedOnItsClusterEvenWhenItIsAllowed() {
        // given
        FlowKafkaReach allowing = reach("task-kafka-allow-engine-cluster", "true");
        Map<String, String> engine = client("bootstrap.servers", "localhost:19092");
        Map<String, String> elsewhere = client();

        // then
        assertThat(allowing.refusedTopic(engine, "topic", "engine.commands")).hasValue("property 'topic' is refused:"
                + " topic 'engine.commands' is under the engine's topic prefix 'engine.' on the engine's own cluster,"
                + " which no setting opens to a flow");
        assertThat(allowing.refusedTopic(engine, "topic", "orders")).isEmpty();
        assertThat(allowing.refusedTopic(elsewhere, "topic", "engine.commands")).isEmpty();
        assertThat(allowing.refusedGroup(engine, "groupId", "engine.executor")).isPresent();
        assertThat(allowing.refusedGroup(engine, "groupId", "my-flow")).isEmpty();
    }
}
