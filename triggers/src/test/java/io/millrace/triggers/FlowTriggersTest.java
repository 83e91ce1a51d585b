package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
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
import java.time.Duration;
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
        String prefix = "flow-triggers-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", broker(), "topic-prefix", prefix,
                "partitions", "2"), null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.executions()));
        Flow downstream = new FlowParser().parse("""
                id: after
                namespace: company.team
                triggers:
                  - id: upstream
                    type: io.kestra.plugin.core.trigger.Flow
                    states: [SUCCESS]
                tasks:
                  - {id: a, type: log, message: "{{ trigger.executionId }}"}
                """);
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
            awaitStartCommitted(config, prefix + "triggers-flow", 2);

            // when: an execution of another flow ends, and only a second later the watcher reads the new flow
            String upstream = "upstream-" + UUID.randomUUID();
            write(topics.executions().name(), upstream, Topics.SNAPSHOT_SERDE.encode(ended(upstream)));
            Thread.sleep(1000);
            List<ProducerRecord<String, byte[]>> beforeTheWatcher = List.copyOf(commands.history());
            var trigger = new FlowTrigger(downstream.namespace(), downstream.id(), downstream.triggers().getFirst());
            flowTriggers.targets(List.of(new FlowTriggers.Target(trigger, FlowTriggerSpec.of(trigger.trigger()))));
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
        String prefix = "flow-triggers-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", broker(), "topic-prefix", prefix,
                "partitions", "1"), null);
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.flows(), topics.executions()));
        Flow downstream = new FlowParser().parse("""
                id: after
                namespace: company.team
                triggers:
                  - {id: upstream, type: io.kestra.plugin.core.trigger.Flow}
                tasks:
                  - {id: a, type: log, message: "{{ trigger.executionId }}"}
                """);
        var progress = new FlowsProgress();
        progress.read(Map.of(new TopicPartition(topics.flows().name(), 0), 0L));
        var commands = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        var metrics = new SimpleMeterRegistry();

        try (var flowTriggers = new FlowTriggers(config, commands, new TriggerMetrics(metrics), progress)) {
            var trigger = new FlowTrigger(downstream.namespace(), downstream.id(), downstream.triggers().getFirst());
            flowTriggers.targets(List.of(new FlowTriggers.Target(trigger, FlowTriggerSpec.of(trigger.trigger()))));
            flowTriggers.start();
            awaitStartCommitted(config, prefix + "triggers-flow", 1);

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

    private static void awaitStartCommitted(MillraceConfig config, String group, int partitions) throws Exception {
        try (Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
            await(() -> admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().size() == partitions);
        }
    }

    private static String broker() {
        return EmbeddedKafkaBroker.shared().bootstrapServers();
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.holds()) {
            assertThat(System.nanoTime()).as("waited 60 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
