package io.millrace.bench;

import io.millrace.serdes.Json;
import io.millrace.serdes.TopicAdmin;
import io.millrace.triggers.TriggerIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Starts W7's executions the way its users do: a plain producer writes a JSON order to the trigger's topic. Each
 * record's execution id is the one the trigger derives from it (flow, trigger, topic, partition, offset, timestamp),
 * known once the broker acknowledged the record; the execution's latency counts from the record's due time.
 */
final class TriggerStarter implements Starter {
    /** The trigger's id in w7.yaml. */
    static final String TRIGGER_ID = "kafka-logs";

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final String namespace;
    private final String flowId;
    private final Tracker tracker;

    TriggerStarter(String bootstrapServers, String topic, String namespace, String flowId, Tracker tracker) {
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer());
        this.topic = topic;
        this.namespace = namespace;
        this.flowId = flowId;
        this.tracker = tracker;
    }

    /**
     * Creates the trigger's topic with the engine's partition count; before the flow is deployed, since a broker that
     * creates topics on first use (standalone's) would otherwise make it when the trigger first asks, with its default count.
     */
    static void createTopic(String bootstrapServers, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            TopicAdmin.awaitWritable(admin, List.of(topic));
        }
    }

    /** Waits until the trigger's group has the topic's partitions (it reads from the end). */
    static void awaitAssigned(String bootstrapServers, int partitions, String groupId) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < deadline) {
                ConsumerGroupDescription group;
                try {
                    group = admin.describeConsumerGroups(List.of(groupId)).all().get().get(groupId);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                        throw e;
                    }
                    group = null; // the trigger has not joined yet
                }
                if (group != null && group.members().stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum()
                        == partitions) {
                    Thread.sleep(1_000); // its first poll fetches the positions
                    return;
                }
                Thread.sleep(200);
            }
            throw new IllegalStateException("The trigger's group " + groupId + " did not get its " + partitions
                    + " partitions within 120 s: is the engine's triggers role running?");
        }
    }

    @Override
    public void start(long n, long dueNanos, LatencyWindow window) {
        var record = new ProducerRecord<String, String>(topic, null, System.currentTimeMillis(), null,
                Json.write(Workload.order(n)));
        producer.send(record, (metadata, error) -> {
            if (error != null) {
                tracker.startFailed(window);
            } else {
                tracker.started(TriggerIds.ofRecord(namespace, flowId, TRIGGER_ID, topic, metadata.partition(),
                        metadata.offset(), metadata.timestamp()), dueNanos, window);
            }
        });
    }

    @Override
    public void close() {
        producer.close();
    }
}
