package io.millrace.app;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Every terminal snapshot on an engine's executions topic (read committed), by execution id: the variables of the
 * trigger that started the execution, its flow, its state, and how many terminal snapshots it had (exactly-once: one).
 */
final class TriggerOutcomes implements AutoCloseable {
    private static final Set<String> TERMINAL = Set.of("SUCCESS", "WARNING", "FAILED", "KILLED");

    final Map<String, Map<String, Object>> variables = new HashMap<>();
    final Map<String, String> flowIds = new HashMap<>();
    final Map<String, String> states = new HashMap<>();
    final Map<String, Integer> completions = new HashMap<>();
    private final KafkaConsumer<String, byte[]> consumer;

    TriggerOutcomes(MillraceConfig config) {
        consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(), new ByteArrayDeserializer());
        Topics.Topic<?> executions = Topics.of(config).executions();
        TopicAdmin.ensure(config, List.of(executions));
        var partitions = consumer.partitionsFor(executions.name()).stream()
                .map(p -> new TopicPartition(executions.name(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Reads until {@code wanted} executions ended or {@code within} passed. */
    void await(int wanted, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (variables.size() < wanted && System.nanoTime() < deadline) {
            poll();
        }
    }

    /** Reads for {@code quiet}, so that a late duplicate would be seen. */
    void drain(Duration quiet) {
        long deadline = System.nanoTime() + quiet.toNanos();
        while (System.nanoTime() < deadline) {
            poll();
        }
    }

    /**
     * Reads until no execution has ended for {@code quiet} (at most {@code within}): once nothing starts executions any
     * more, those started last have ended, and a late duplicate would have been seen.
     */
    void settle(Duration quiet, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        int seen = completions.values().stream().mapToInt(Integer::intValue).sum();
        long quietUntil = System.nanoTime() + quiet.toNanos();
        while (System.nanoTime() < quietUntil && System.nanoTime() < deadline) {
            poll();
            int now = completions.values().stream().mapToInt(Integer::intValue).sum();
            if (now != seen) {
                seen = now;
                quietUntil = System.nanoTime() + quiet.toNanos();
            }
        }
    }

    private void poll() {
        for (var record : consumer.poll(Duration.ofMillis(200))) {
            if (record.value() == null || SnapshotKeys.isRun(record.key())) {
                continue;
            }
            ExecutionSnapshot snapshot = Topics.SNAPSHOT_SERDE.decode(record.value());
            String state = snapshot.getExecution().getState().name();
            if (!TERMINAL.contains(state)) {
                continue;
            }
            String id = snapshot.getExecution().getId();
            var trigger = snapshot.getExecution().getTrigger();
            variables.put(id, trigger == null ? Map.of() : Json.readMap(trigger.getVariablesJson()));
            flowIds.put(id, snapshot.getExecution().getFlowId());
            states.put(id, state);
            completions.merge(id, 1, Integer::sum);
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
