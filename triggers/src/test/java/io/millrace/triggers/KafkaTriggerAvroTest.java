package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * An AVRO Kafka trigger on a real broker, with {@link SchemaRegistryStandIn} (a stand-in for a Confluent-compatible
 * registry, not Confluent's server): while the registry fails, the trigger holds its records back and tries again;
 * once it answers, each readable record starts one execution, and only the record not in the wire format is skipped.
 */
class KafkaTriggerAvroTest {
    private static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "shop", "fields": [
              {"name": "id", "type": "long"},
              {"name": "total", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}]}""");
    private static final Instant AT = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldHoldRecordsBackWhileTheRegistryFailsThenStartOneExecutionPerReadableRecord() throws Exception {
        // given: a topic with two orders in the wire format around a record that is not, and a registry answering 503
        String bootstrap = EmbeddedKafkaBroker.shared().bootstrapServers();
        String topic = "avro-orders-" + UUID.randomUUID().toString().substring(0, 8);
        try (var admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, "k1", order(1, 7, "12.34"))).get();
            producer.send(new ProducerRecord<>(topic, "k2", new byte[] {1, 2, 3})).get();
            producer.send(new ProducerRecord<>(topic, "k3", order(1, 8, "0.50"))).get();
        }
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        var meters = new SimpleMeterRegistry();

        try (var registry = new SchemaRegistryStandIn().register(1, ORDER); var registries = new SchemaRegistries()) {
            registry.answerEveryRequestWith(503);
            Flow flow = new FlowParser().parse("""
                    id: avro-orders
                    namespace: company.team
                    triggers:
                      - id: orders
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: %s
                        properties: {bootstrap.servers: "%s", auto.offset.reset: earliest}
                        groupId: %s
                        valueDeserializer: AVRO
                        serdeProperties: {schema.registry.url: "%s"}
                    tasks:
                      - {id: a, type: log, message: "{{ trigger.value }}"}
                    """.formatted(topic, bootstrap, topic, registry.url()));
            var target = new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst());
            try (var trigger = new KafkaTrigger(target, commands, "commands", new TriggerMetrics(meters), registries)) {
                trigger.start();

                // when: the trigger failed on the registry, and then the registry answers
                await(() -> count(meters, "millrace.trigger.restarts") >= 1, Duration.ofSeconds(60));
                assertThat(commands.history()).isEmpty();
                registry.answerEveryRequestWith(0);
                await(() -> count(meters, "millrace.trigger.records", "outcome", "started") >= 2, Duration.ofSeconds(60));
            }
        }

        // then: one execution per order, with the values it holds as the execution reads them
        List<Map<String, Object>> variables = commands.history().stream()
                .map(sent -> (CreateExecution) CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(sent.value())))
                .map(create -> create.trigger().variables())
                .toList();
        assertThat(variables).extracting(v -> v.get("key"), v -> v.get("offset"), v -> v.get("value")).containsExactly(
                org.assertj.core.groups.Tuple.tuple("k1", 0, Map.of("id", 7, "total", 12.34, "at", AT.toString())),
                org.assertj.core.groups.Tuple.tuple("k3", 2, Map.of("id", 8, "total", 0.5, "at", AT.toString())));
        assertThat(count(meters, "millrace.trigger.records", "outcome", "skipped")).isEqualTo(1.0);
    }

    private static byte[] order(int schemaId, long id, String total) {
        Schema totalSchema = ORDER.getField("total").schema();
        var order = new GenericRecordBuilder(ORDER)
                .set("id", id)
                .set("total", new Conversions.DecimalConversion().toBytes(new BigDecimal(total), totalSchema,
                        totalSchema.getLogicalType()))
                .set("at", AT.toEpochMilli())
                .build();
        return SchemaRegistryStandIn.wireFormat(schemaId, ORDER, order);
    }

    private static double count(SimpleMeterRegistry meters, String name, String... tags) {
        // summed over the series that match: every trigger type's exist from the start
        return meters.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    private static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %s", timeout).isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
