package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog of events that waited on the user's topic (the flow did not exist yet, as if Millrace had been stopped):
 * it drains, each event starting one execution, and meanwhile the commands the executor has yet to read stay near the
 * triggers' limit, so a REST start is never queued behind the whole backlog.
 */
class TriggerBacklogTest {
    private static final int EVENTS = 12_000;

    @TempDir
    Path stateDir;

    @Test
    void shouldDrainABacklogOnceEachWithoutQueueingItAheadOfOtherStarts() throws Exception {
        // given: the events on a topic, then the flow that reads them
        MillraceConfig config = ConfigLoader.load(Map.of(), TestEngines.settings("backlog", stateDir, "port", "0",
                "task-kafka-allow-engine-cluster", "true"), null);
        String topic = "backlog-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker()))) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker(),
                ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < EVENTS; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "event-" + i));
            }
        }
        try (Engine engine = Engine.start(config); var outcomes = new TriggerOutcomes(config);
                Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
            String api = "http://localhost:" + engine.port() + "/api/v1";
            StandaloneEndToEndTest.send("POST", api + "/flows", """
                    id: ping
                    namespace: test.backlog
                    tasks:
                      - {id: pong, type: io.kestra.plugin.core.debug.Return, format: pong}
                    """, 200);

            // when: the flow is deployed, and the backlog drains while REST starts keep coming
            StandaloneEndToEndTest.send("POST", api + "/flows", """
                    id: drain
                    namespace: test.backlog
                    triggers:
                      - id: events
                        type: io.kestra.plugin.kafka.RealtimeTrigger
                        topic: %s
                        groupId: %s
                        properties: {bootstrap.servers: "%s", auto.offset.reset: earliest}
                    tasks:
                      - {id: echo, type: io.kestra.plugin.core.debug.Return, format: "{{ trigger.value }}"}
                    """.formatted(topic, topic, broker()), 200);
            var highestBacklog = new AtomicLong();
            var pings = new ArrayList<String>();
            var sampling = Thread.ofVirtual().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        highestBacklog.accumulateAndGet(commandsUnread(admin, config), Math::max);
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // a sample less
                    }
                }
            });
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            while (outcomes.variables.size() < EVENTS + pings.size() && System.nanoTime() < deadline) {
                if (pings.size() < 10) {
                    pings.add(StandaloneEndToEndTest.send("POST", api + "/executions/test.backlog/ping?wait=true&timeout=PT60S",
                            "{}", 200).at("/state/current").asText());
                }
                outcomes.await(EVENTS + pings.size(), Duration.ofMillis(500));
            }
            sampling.interrupt();
            outcomes.drain(Duration.ofSeconds(2));

            // then: every event once, the REST starts ended while the backlog drained, and the backlog stayed bounded
            var values = outcomes.variables.values().stream().map(v -> v.get("value")).filter(v -> v != null)
                    .map(Object::toString).collect(Collectors.toList());
            assertThat(values).hasSize(EVENTS);
            assertThat(new HashSet<>(values)).hasSize(EVENTS);
            assertThat(outcomes.completions.values()).containsOnly(1);
            assertThat(pings).isNotEmpty().containsOnly("SUCCESS");
            assertThat(highestBacklog.get()).as("commands the executor had not read, at most")
                    .isLessThan(config.triggerExecutorBacklog() + 4 * 500L + 100);
        }
    }

    private static long commandsUnread(Admin admin, MillraceConfig config) throws Exception {
        String commands = Topics.of(config).commands().name();
        List<TopicPartition> partitions = admin.describeTopics(List.of(commands)).allTopicNames().get().get(commands)
                .partitions().stream().map(p -> new TopicPartition(commands, p.partition())).toList();
        var ends = admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all().get();
        Map<TopicPartition, OffsetAndMetadata> read = admin.listConsumerGroupOffsets(config.topicPrefix() + "executor")
                .partitionsToOffsetAndMetadata().get();
        long total = 0;
        for (TopicPartition partition : partitions) {
            total += ends.get(partition).offset() - (read.get(partition) == null ? 0 : read.get(partition).offset());
        }
        return total;
    }

    private static String broker() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }
}
