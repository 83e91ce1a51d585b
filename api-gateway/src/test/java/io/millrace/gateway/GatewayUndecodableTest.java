package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.execution.State;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.LogRecord;
import io.millrace.serdes.avro.TaskRunSnapshot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.avro.SchemaNormalization;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes that are no record at all, produced onto the gateway's topics by a plain producer, among good records: the
 * read model skips and counts them and keeps serving the rest; an execution whose stored run does not decode answers
 * 500 alone.
 */
class GatewayUndecodableTest {
    private static final byte[] GARBAGE = "not avro at all".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path stateDir;

    @Test
    void shouldServeTheOthersAndCountWhatDoesNotDecode() throws Exception {
        // given
        String prefix = "undecodable" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(), "topic-prefix", prefix,
                "port", "0", "state-dir", stateDir.toString()), null);
        Topics topics = Topics.of(config);
        var registry = new SimpleMeterRegistry();
        try (Gateway gateway = Gateway.startStandalone(config, registry);
                var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers()),
                        new StringSerializer(), new ByteArraySerializer())) {
            assertThat(gateway.awaitReady(Duration.ofSeconds(60))).isTrue();
            var api = new Api(gateway.port());

            // when: garbage among good records on the executions, logs and flows topics
            String executions = topics.executions().name();
            producer.send(new ProducerRecord<>(executions, "garbage", GARBAGE)).get();
            producer.send(new ProducerRecord<>(executions, "ex-broken",
                    Topics.SNAPSHOT_SERDE.encode(Snapshots.of("ex-broken", "ns", "f", State.SUCCESS)))).get();
            producer.send(new ProducerRecord<>(executions, SnapshotKeys.run("ex-broken", 0), cutShortRun())).get();
            producer.send(new ProducerRecord<>(executions, "ex-ok",
                    Topics.SNAPSHOT_SERDE.encode(Snapshots.of("ex-ok", "ns", "f", State.SUCCESS)))).get();
            producer.send(new ProducerRecord<>(topics.logs().name(), "ex-ok", GARBAGE)).get();
            producer.send(new ProducerRecord<>(topics.logs().name(), "ex-ok", Topics.LOG_SERDE.encode(new LogRecord(
                    "ex-ok", "ns", "f", "t", "ex-ok-t", 1, Instant.EPOCH, "INFO", null, "fine")))).get();
            producer.send(new ProducerRecord<>(topics.flows().name(), "ns/f@00000001", GARBAGE)).get();

            // then: the good ones are served
            awaitAnswer(() -> api.get("/api/v1/logs/ex-ok"), answer -> answer.json().size() == 1);
            awaitAnswer(() -> api.get("/api/v1/executions/ex-ok"), answer -> true);
            assertThat(api.get("/api/v1/logs/ex-ok").json().get(0).path("message").asText()).isEqualTo("fine");
            assertThat(api.get("/api/v1/executions/ex-ok").json().at("/state/current").asText()).isEqualTo("SUCCESS");
            assertThat(api.get("/api/v1/executions/garbage").status()).isEqualTo(404);
            assertThat(api.get("/api/v1/flows/ns/f").status()).isEqualTo(404);
            assertThat(api.get("/api/v1/flows/ns/f/revisions").status()).isEqualTo(404);
            var search = api.get("/api/v1/executions/search").json();
            assertThat(search.path("results")).extracting(result -> result.path("id").asText()).containsExactly("ex-ok");

            // and the execution whose run does not decode answers 500 alone, in the API's error shape
            var broken = api.get("/api/v1/executions/ex-broken");
            assertThat(broken.status()).isEqualTo(500);
            assertThat(broken.json().path("message").asText()).contains("ex-broken").doesNotContain("Exception");

            // and the read model never stopped, and counted each
            assertThat(gateway.ready()).isTrue();
            for (String store : new String[] {"executions", "runs", "logs", "flows"}) {
                awaitAnswer(() -> registry.get("millrace.gateway.undecodable").tag("store", store).counter().count(),
                        count -> count >= 1.0);
            }
            assertThat(registry.get("millrace.state.resets").tag("role", "gateway").counter().count()).isZero();
        }
    }

    /** A run snapshot's header (its marker and its schema's fingerprint) and then a body that is not one. */
    private static byte[] cutShortRun() {
        long fingerprint = SchemaNormalization.parsingFingerprint64(TaskRunSnapshot.getClassSchema());
        return ByteBuffer.allocate(14).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0xC3).put((byte) 0x01)
                .putLong(fingerprint).put(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}).array();
    }

    /** Asks until the answer is a 200 (or not an answer of the API) that {@code done} accepts, at most 30 s. */
    private static <T> void awaitAnswer(Supplier<T> ask, Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        T answer;
        do {
            answer = ask.get();
            if ((!(answer instanceof Api.Answer http) || http.status() == 200) && done.test(answer)) {
                return;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("Expected another answer than " + answer);
    }
}
