package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.execution.State;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.LogRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read model after a restart: on its own local state, and rebuilt from the topics when that state is gone. What
 * the loaders derive (log lines under their offsets) must come back the same either way.
 */
class GatewayRestartTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldServeTheSameExecutionAndLogsAfterARestartAndAfterLosingItsLocalState() throws Exception {
        // given: an execution and its log lines on the topics, read by a first gateway
        String prefix = "restart" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(), "topic-prefix", prefix,
                "port", "0", "state-dir", stateDir.toString()), null);
        Topics topics = Topics.of(config);
        try (Gateway gateway = started(config)) {
            try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers()),
                    new StringSerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(topics.executions().name(), "ex1",
                        Topics.SNAPSHOT_SERDE.encode(Snapshots.of("ex1", "ns", "f", State.SUCCESS)))).get();
                for (String message : new String[] {"one", "two"}) {
                    producer.send(new ProducerRecord<>(topics.logs().name(), "ex1", Topics.LOG_SERDE.encode(new LogRecord(
                            "ex1", "ns", "f", "t", "ex1-t", 1, Instant.EPOCH, "INFO", null, message)))).get();
                }
            }
            awaitLogs(gateway, config, 2);
        }

        // when / then: restarted on its state, then on none
        for (boolean wipe : new boolean[] {false, true}) {
            if (wipe) {
                deleteTree(stateDir.resolve("gateway"));
            }
            try (Gateway gateway = started(config)) {
                var api = new Api(gateway.port());
                assertThat(api.get("/api/v1/executions/ex1").json().at("/state/current").asText()).isEqualTo("SUCCESS");
                var logs = awaitLogs(gateway, config, 2);
                assertThat(logs.json().get(0).path("message").asText()).isEqualTo("one");
                assertThat(logs.json().get(1).path("message").asText()).isEqualTo("two");
            }
        }
    }

    private static Gateway started(MillraceConfig config) throws InterruptedException {
        Gateway gateway = Gateway.startStandalone(config);
        assertThat(gateway.awaitReady(Duration.ofSeconds(60))).isTrue();
        return gateway;
    }

    private static Api.Answer awaitLogs(Gateway gateway, MillraceConfig config, int lines) throws InterruptedException {
        var api = new Api(gateway.port());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Api.Answer answer;
        do {
            answer = api.get("/api/v1/logs/ex1");
            if (answer.status() == 200 && answer.json().size() == lines) {
                return answer;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("Expected " + lines + " log lines, got " + answer.body());
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (var paths = java.nio.file.Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
