package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What one execution writes to the executor's changelogs. Written through, a two-task execution writes its state
 * three times and its timers five times (two leases set and deleted, one purge), and its outputs inside its state.
 * Cached, a key written several times between two commits reaches its changelog once.
 */
class ChangelogRecordsTest {
    @TempDir
    Path stateDir;

    @ParameterizedTest
    @ValueSource(strings = {"exactly_once_v2", "at_least_once"})
    void shouldWriteCachedStoresOncePerCommitAndTheStateThroughUnderAtLeastOnce(String guarantee) throws Exception {
        // given: commits 10 s apart, so an execution of a few milliseconds nearly always falls between two of them
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("chg", stateDir, "port", "0",
                "processing-guarantee", guarantee, "commit-interval-ms", "10000"), null);
        try (Engine engine = Engine.start(config)) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            StandaloneEndToEndTest.send("POST", api + "/flows", StandaloneEndToEndTest.JSON_TRANSFORM, 200);

            // when
            String id = StandaloneEndToEndTest.send("POST", api + "/executions/company.team/json-transform?wait=true",
                    StandaloneEndToEndTest.ORDER, 200).path("id").asText();

            // then: cached timers reach the changelog at the next commit, the purge last; a commit inside the
            // execution would split a key's writes in two
            String application = config.topicPrefix() + "executor-";
            List<String> timerKeys = keys(config, application + "executor-timers-changelog", id,
                    keys -> keys.stream().anyMatch(key -> key.contains("/PURGE/")));
            List<String> stateKeys = keys(config, application + "executor-executions-changelog", id, keys -> true);
            if (guarantee.equals("exactly_once_v2")) {
                assertThat(stateKeys).hasSizeBetween(1, 2);
            } else {
                assertThat(stateKeys).hasSize(3); // before the records that follow from each step
            }
            assertThat(timerKeys).hasSizeBetween(3, 4);
            assertThat(timerKeys.stream().filter(key -> key.contains("/PURGE/"))).hasSize(1);
            // a small execution keeps its outputs in its own record: the transaction that wrote its last outputs
            // wrote the purge timer too, so the outputs changelog is read to an end that holds them all
            assertThat(keys(config, application + "executor-outputs-changelog", id, keys -> true))
                    .as("outputs changelog records").isEmpty();
        }
    }

    /** The keys of the execution's records in a changelog, read to its end once they are {@code complete}. */
    private static List<String> keys(MillraceConfig config, String topic, String executionId,
            Predicate<List<String>> complete) {
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of("bootstrap.servers", config.bootstrapServers(),
                "isolation.level", "read_committed"), new StringDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var keys = new ArrayList<String>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.key().contains(executionId)) {
                        keys.add(record.key());
                    }
                }
                Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
                if (complete.test(keys) && partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p))) {
                    return keys;
                }
                assertThat(System.nanoTime()).as("%s in %s within 30 s, so far %s", executionId, topic, keys)
                        .isLessThan(deadline);
            }
        }
    }
}
