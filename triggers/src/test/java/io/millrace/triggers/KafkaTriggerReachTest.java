package io.millrace.triggers;

import static io.millrace.triggers.TriggerTests.await;
import static io.millrace.triggers.TriggerTests.broker;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.TriggerTypes;
import io.millrace.serdes.FlowKafkaReach;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.HttpTargets;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Kafka triggers whose settings reach what the operator does not allow never start a client. */
class KafkaTriggerReachTest {
    private static MillraceConfig config(String... settings) {
        var all = new HashMap<String, String>(Map.of("bootstrap-servers", broker(),
                "topic-prefix", "reach-" + UUID.randomUUID().toString().substring(0, 8) + ".", "partitions", "1",
                "state-dir", System.getProperty("java.io.tmpdir") + "/reach-" + UUID.randomUUID()));
        for (int i = 0; i < settings.length; i += 2) {
            all.put(settings[i], settings[i + 1]);
        }
        return ConfigLoader.load(Map.of(), all, null);
    }

    private static Flow flow(String trigger) throws Exception {
        return new FlowParser().parse("""
                id: listening
                namespace: company.team
                triggers:
                %s
                tasks:
                  - {id: a, type: log, message: "{{ trigger.value }}"}
                """.formatted(trigger.indent(2)));
    }

    private static Optional<String> refusal(MillraceConfig config, String trigger) throws Exception {
        Flow flow = flow(trigger);
        return KafkaTrigger.refusal(new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst()),
                FlowKafkaReach.of(config), new SchemaRegistries(HttpTargets.forRole(config)));
    }

    @Test
    void shouldNameTheRefusedSettingOfATrigger() throws Exception {
        // given
        MillraceConfig config = config();
        MillraceConfig allowing = config("task-kafka-allow-engine-cluster", "true");
        String prefix = allowing.topicPrefix();
        String elsewhere = "properties: {bootstrap.servers: 'kafka.example:9092', %s}";
        String engine = "properties: {bootstrap.servers: '" + broker() + "'}";

        // then
        assertThat(refusal(config, """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: orders, groupId: g,
                   %s}""".formatted(elsewhere.formatted("interceptor.classes: com.example.Spy")))).hasValue("property"
                + " 'properties.interceptor.classes' is refused: it makes the Kafka client load Java classes, which no"
                + " setting allows a flow to");
        assertThat(refusal(config, """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: orders, groupId: g,
                   %s}""".formatted(engine))).hasValueSatisfying(why -> assertThat(why)
                .contains("task-kafka-allow-engine-cluster=true"));
        assertThat(refusal(allowing, """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: orders, groupId: g,
                   %s}""".formatted(engine))).isEmpty();
        assertThat(refusal(allowing, """
                - {id: t, type: io.kestra.plugin.kafka.Trigger, topic: [orders, %scommands], groupId: g, interval: PT1S,
                   %s}""".formatted(prefix, engine))).hasValueSatisfying(why -> assertThat(why)
                .startsWith("property 'topic' is refused: topic '" + prefix + "commands' is under the engine's"));
        assertThat(refusal(allowing, """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topicPattern: '.*', groupId: g, %s}"""
                .formatted(engine))).isEmpty();
        assertThat(refusal(allowing, """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topicPattern: '(?x).*#', groupId: g, %s}"""
                .formatted(engine))).hasValueSatisfying(why -> assertThat(why)
                .startsWith("property 'topicPattern' is not a regular expression"));
        assertThat(refusal(allowing, """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: orders, groupId: '%sexecutor',
                   %s}"""
                .formatted(prefix, engine)))
                .hasValueSatisfying(why -> assertThat(why).startsWith("property 'groupId'"));
    }

    @Test
    void shouldRefuseASchemaRegistryTheHttpRulesRefuseOrWhosePathTheFlowChooses() throws Exception {
        // given
        MillraceConfig config = config();
        MillraceConfig allowing = config("task-http-allow", "127.0.0.1");
        String avro = """
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: orders, groupId: g,
                   valueDeserializer: AVRO, serdeProperties: {schema.registry.url: '%s'},
                   properties: {bootstrap.servers: 'kafka.example:9092'}}""";

        // then
        assertThat(refusal(config, avro.formatted("http://169.254.169.254/latest"))).hasValue("property"
                + " 'serdeProperties.schema.registry.url' is refused: the target 169.254.169.254 is not allowed: it is"
                + " a link-local or cloud metadata address; the setting task-http-allow allows it"
                + " (e.g. --set task-http-allow=169.254.169.254/32)");
        assertThat(refusal(config, avro.formatted("http://127.0.0.1:8080"))).hasValueSatisfying(why ->
                assertThat(why).contains("it is this machine", "task-http-allow"));
        assertThat(refusal(allowing, avro.formatted("http://127.0.0.1:8080"))).isEmpty();
        for (String url : new String[] {"http://registry.example/admin?", "http://registry.example/x#",
                "http://registry.example/?a=b"}) {
            assertThat(refusal(allowing, avro.formatted(url))).as(url).hasValueSatisfying(why ->
                    assertThat(why).contains("has a query or fragment"));
        }
    }

    @Test
    void shouldCountAndNeverStartATriggerOnTheEnginesClusterByDefault() throws Exception {
        // given: a flow whose trigger reads a topic of the engine's own broker, which the defaults refuse
        MillraceConfig config = config();
        String group = "refused-" + UUID.randomUUID().toString().substring(0, 8);
        Flow flow = flow("""
                - {id: t, type: io.kestra.plugin.kafka.RealtimeTrigger, topic: orders, groupId: %s,
                   properties: {bootstrap.servers: '%s'}}""".formatted(group, broker()));
        FlowRecord record = FlowMapper.toRecord(flow, Instant.now());
        var registry = new SimpleMeterRegistry();

        // when
        Map<String, Object> producing = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker());
        try (Triggers triggers = Triggers.start(config, registry);
                var producer = new KafkaProducer<>(producing, new StringSerializer(), new ByteArraySerializer())) {
            String key = FlowMapper.key(flow.namespace(), flow.id(), record.getRevision());
            producer.send(new ProducerRecord<>(Topics.of(config).flows().name(), key, Topics.FLOW_SERDE.encode(record)))
                    .get();
            await(() -> registry.counter("millrace.trigger.refusals", "type", TriggerTypes.KAFKA_REALTIME)
                    .count() == 1);
            Thread.sleep(500);

            // then: counted once, and no consumer of its group ever joined
            assertThat(registry.counter("millrace.trigger.refusals", "type", TriggerTypes.KAFKA_REALTIME).count())
                    .isEqualTo(1);
            try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
                assertThat(admin.listGroups().all().get()).noneMatch(listed -> listed.groupId().equals(group));
            }
        }
    }
}
