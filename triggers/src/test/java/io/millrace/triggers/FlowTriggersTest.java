package io.millrace.triggers;

import static io.millrace.triggers.TriggerTests.await;
import static io.millrace.triggers.TriggerTests.broker;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowTriggerSpec;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The Flow triggers' consumer on the real broker, with the flows watcher played by the test: an execution's end must
 * meet the Flow triggers of every flow saved before it was read, even when the watcher is behind. The creates go to
 * Kafka's {@link MockProducer}, which answers each at once, so the test reads them back as sent.
 */
class FlowTriggersTest {
    @Test
    void shouldWaitForTheFlowsSavedBeforeAnExecutionEndedRead() throws Exception {
        // given: a flow saved on the flows topic that the watcher has not read yet
        MillraceConfig config = engineWithTopics(2);
        Topics topics = Topics.of(config);
        write(topics.flows().name(), "company.team/after", "the watcher decodes this, not the Flow triggers".getBytes());
        var progress = new FlowsProgress();
        Map<TopicPartition, Long> nothingRead = new HashMap<>();
        for (int partition = 0; partition < 2; partition++) {
            nothingRead.put(new TopicPartition(topics.flows().name(), partition), 0L);
        }
        progress.read(nothingRead);
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());

        try (var flowTriggers = new FlowTriggers(config, commands, new TriggerMetrics(new SimpleMeterRegistry()), progress)) {
            flowTriggers.start();
            awaitStartCommitted(config, 2);

            // when: an execution of another flow ends, and only a second later the watcher reads the new flow
            String upstream = "upstream-" + UUID.randomUUID();
            write(topics.executions().name(), upstream, Topics.SNAPSHOT_SERDE.encode(ended(upstream)));
            Thread.sleep(1000);
            List<ProducerRecord<String, byte[]>> beforeTheWatcher = List.copyOf(commands.history());
            flowTriggers.targets(List.of(downstream()));
            Map<TopicPartition, Long> allRead = new HashMap<>();
            try (Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
                nothingRead.keySet().forEach(partition -> allRead.put(partition, endOffset(admin, partition)));
            }
            progress.read(allRead);

            // then: the end waited for the flow, and started it once
            await(() -> !commands.history().isEmpty());
            assertThat(beforeTheWatcher).isEmpty();
            assertThat(commands.history()).extracting(ProducerRecord::key)
                    .containsExactly(TriggerIds.of("flow", upstream, "company.team", "after", "upstream"));
        }
    }

    @Test
    void shouldSkipASnapshotThatDoesNotReadAndGoOn() throws Exception {
        // given: Flow triggers that know the downstream flow, and every flow read
        MillraceConfig config = engineWithTopics(1);
        Topics topics = Topics.of(config);
        var progress = new FlowsProgress();
        progress.read(Map.of(new TopicPartition(topics.flows().name(), 0), 0L));
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        var metrics = new SimpleMeterRegistry();

        try (var flowTriggers = new FlowTriggers(config, commands, new TriggerMetrics(metrics), progress)) {
            flowTriggers.targets(List.of(downstream()));
            flowTriggers.start();
            awaitStartCommitted(config, 1);

            // when: a record that is not a snapshot, then an execution's end
            String upstream = "upstream-" + UUID.randomUUID();
            write(topics.executions().name(), "garbage", new byte[] {1, 2, 3});
            write(topics.executions().name(), upstream, Topics.SNAPSHOT_SERDE.encode(ended(upstream)));

            // then: the end started the downstream flow, and the record was counted
            await(() -> !commands.history().isEmpty());
            assertThat(commands.history()).extracting(ProducerRecord::key)
                    .containsExactly(TriggerIds.of("flow", upstream, "company.team", "after", "upstream"));
            assertThat(metrics.get("millrace.trigger.records").tag("type", "io.kestra.plugin.core.trigger.Flow")
                    .tag("outcome", "skipped").counter().count()).isEqualTo(1.0);
        }
    }

    @Test
    void shouldStartAgainAfterACreateFailedAndStartTheFlowOnce() throws Exception {
        // given: Flow triggers that know the downstream flow, every flow read, and creates answered when the test says
        MillraceConfig config = engineWithTopics(1);
        Topics topics = Topics.of(config);
        var progress = new FlowsProgress();
        progress.read(Map.of(new TopicPartition(topics.flows().name(), 0), 0L));
        var commands = new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
        var metrics = new SimpleMeterRegistry();
        String upstream = "upstream-" + UUID.randomUUID();
        String id = TriggerIds.of("flow", upstream, "company.team", "after", "upstream");

        try (var flowTriggers = new FlowTriggers(config, commands, new TriggerMetrics(metrics), progress)) {
            flowTriggers.targets(List.of(downstream()));
            flowTriggers.start();
            awaitStartCommitted(config, 1);
            write(topics.executions().name(), upstream, Topics.SNAPSHOT_SERDE.encode(ended(upstream)));
            await(() -> commands.history().size() == 1);

            // when: Kafka does not take the create
            commands.errorNext(new TimeoutException("Expiring 1 record(s)"));

            // then: the consumer starts again from the last commit, reads the end again and sends the same create
            await(() -> commands.history().size() == 2);
            assertThat(committed(config)).as("nothing committed past the end whose create failed").isZero();
            commands.completeNext();
            await(() -> committed(config) == 1);
            assertThat(commands.history()).extracting(ProducerRecord::key).containsExactly(id, id);
            assertThat(metrics.get("millrace.trigger.restarts").tag("type", "io.kestra.plugin.core.trigger.Flow")
                    .counter().count()).isEqualTo(1.0);
            assertThat(flowTriggers.listening()).isTrue();
        }
    }

    /** The Flow triggers' group's committed offset on the executions topic's partition 0; -1 when none. */
    private static long committed(MillraceConfig config) throws Exception {
        try (Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
            var offset = admin.listConsumerGroupOffsets(config.topicPrefix() + "triggers-flow").partitionsToOffsetAndMetadata()
                    .get().get(new TopicPartition(Topics.of(config).executions().name(), 0));
            return offset == null ? -1 : offset.offset();
        }
    }

    /** An engine's settings on the test broker, under a prefix of its own, with its flows and executions topics. */
    private static MillraceConfig engineWithTopics(int partitions) {
        String prefix = "flow-triggers-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", broker(), "topic-prefix", prefix,
                "partitions", String.valueOf(partitions)), null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.executions()));
        return config;
    }

    /** A flow started when an execution of another flow ends SUCCESS. */
    private static FlowTriggers.Target downstream() throws Exception {
        Flow flow = new FlowParser().parse("""
                id: after
                namespace: company.team
                triggers:
                  - id: upstream
                    type: io.kestra.plugin.core.trigger.Flow
                    states: [SUCCESS]
                tasks:
                  - {id: a, type: log, message: "{{ trigger.executionId }}"}
                """);
        var trigger = new FlowTrigger(flow.namespace(), flow.id(), flow.triggers().getFirst());
        return new FlowTriggers.Target(trigger, FlowTriggerSpec.of(trigger.trigger()));
    }

    private static ExecutionSnapshot ended(String id) {
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        var histories = List.of(new StateHistory(State.CREATED, at), new StateHistory(State.RUNNING, at.plusMillis(1)),
                new StateHistory(State.SUCCESS, at.plusMillis(2)));
        var execution = new Execution(id, "company.team", "before", 1, Map.of(), Map.of(), null, State.SUCCESS, histories,
                List.of(), Map.of(), null);
        return new ExecutionSnapshot(ExecutionMapper.toHeaderRecord(execution), Map.of(), at, 0);
    }

    private static void write(String topic, String key, byte[] value) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    private static long endOffset(Admin admin, TopicPartition partition) {
        try {
            return admin.listOffsets(Map.of(partition, org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get()
                    .get(partition).offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Until the Flow triggers' group has committed where it starts on each partition of the executions topic. */
    private static void awaitStartCommitted(MillraceConfig config, int partitions) throws Exception {
        String group = config.topicPrefix() + "triggers-flow";
        try (Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
            await(() -> admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().size() == partitions);
        }
    }
}
