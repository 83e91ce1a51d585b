package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.execution.State;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.LogRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway started on local state that no longer matches the cluster: the logs topic it read was deleted and made
 * again, so the read model's stored offsets point past what the topic holds. Kafka Streams stops the read model's
 * global thread on that; the gateway wipes its local state, reads the topics again and turns ready by itself.
 */
class GatewayStaleStateTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldTurnReadyByItselfOnStateWhoseOffsetsAreNoLongerOnTheTopics() throws Exception {
        // given: a first gateway read an execution and two log lines
        String prefix = "stale" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(), "topic-prefix", prefix,
                "port", "0", "state-dir", stateDir.toString()), null);
        Topics topics = Topics.of(config);
        try (Gateway gateway = Gateway.startStandalone(config);
                var producer = producer(config)) {
            assertThat(gateway.awaitReady(Duration.ofSeconds(60))).isTrue();
            producer.send(new ProducerRecord<>(topics.executions().name(), "ex1",
                    Topics.SNAPSHOT_SERDE.encode(Snapshots.of("ex1", "ns", "f", State.SUCCESS)))).get();
            producer.send(new ProducerRecord<>(topics.logs().name(), "ex1", line("one"))).get();
            producer.send(new ProducerRecord<>(topics.logs().name(), "ex1", line("two"))).get();
            awaitLogs(new Api(gateway.port()), "one", "two");
        }
        deleteTopic(config, topics.logs().name());

        // when: a gateway starts on that state (and makes the logs topic again, empty)
        var registry = new SimpleMeterRegistry();
        try (Gateway gateway = Gateway.startStandalone(config, registry);
                var producer = producer(config)) {

            // then: it finds its state stale (it may say ready for a moment before: the logs' offsets are checked
            // as the global thread reads them), rebuilds it, and is ready by itself, serving the execution, and the
            // logs the topic holds now
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (registry.get("millrace.state.resets").tag("role", "gateway").counter().count() < 1
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(gateway.awaitReady(Duration.ofSeconds(90))).isTrue();
            var api = new Api(gateway.port());
            assertThat(api.get("/api/v1/executions/ex1").json().at("/state/current").asText()).isEqualTo("SUCCESS");
            producer.send(new ProducerRecord<>(topics.logs().name(), "ex1", line("three"))).get();
            awaitLogs(api, "three");
            assertThat(registry.get("millrace.state.resets").tag("role", "gateway").counter().count()).isEqualTo(1.0);
            assertThat(gateway.alive()).isTrue();
        }
    }

    private static byte[] line(String message) {
        return Topics.LOG_SERDE.encode(new LogRecord("ex1", "ns", "f", "t", "ex1-t", 1, Instant.EPOCH, "INFO", null,
                message));
    }

    private static KafkaProducer<String, byte[]> producer(MillraceConfig config) {
        return new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer());
    }

    /** Deletes a topic and waits until the cluster no longer lists it, so that it can be made again. */
    private static void deleteTopic(MillraceConfig config, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", config.bootstrapServers()))) {
            admin.deleteTopics(List.of(topic)).all().get();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (admin.listTopics().names().get().contains(topic)) {
                assertThat(System.nanoTime()).as("the topic is gone within 30 s").isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    private static void awaitLogs(Api api, String... messages) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Api.Answer answer;
        do {
            answer = api.get("/api/v1/logs/ex1");
            if (answer.status() == 200 && answer.json().size() == messages.length) {
                for (int i = 0; i < messages.length; i++) {
                    assertThat(answer.json().get(i).path("message").asText()).isEqualTo(messages[i]);
                }
                return;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("Expected the log lines " + List.of(messages) + ", got " + answer.body());
    }
}
