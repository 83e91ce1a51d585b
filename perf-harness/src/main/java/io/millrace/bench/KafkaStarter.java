package io.millrace.bench;

import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Starts executions the way a trigger producer would: a create command on the commands topic. */
final class KafkaStarter implements Starter {
    private final KafkaProducer<String, CommandRecord> producer;
    private final String topic;
    private final Workload workload;
    private final String flowId;
    private final String idPrefix;
    private final Tracker tracker;

    /** @param producer the gateway's producer settings for the engine: starts are sent as the gateway's are */
    KafkaStarter(String bootstrapServers, Topics topics, Workload workload, String flowId, String runId, Tracker tracker,
            Map<String, Object> producer) {
        var props = new HashMap<>(producer);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.producer = new KafkaProducer<>(props,
                new StringSerializer(), Topics.COMMAND_SERDE.serializer());
        this.topic = topics.commands().name();
        this.workload = workload;
        this.flowId = flowId;
        this.idPrefix = runId + "-";
        this.tracker = tracker;
    }

    @Override
    public void start(long n, long dueNanos, LatencyWindow window) {
        String id = idPrefix + n;
        tracker.started(id, dueNanos, window);
        var command = new CreateExecution(id, Workload.NAMESPACE, flowId, null, workload.inputs(n), Map.of(), Instant.now());
        producer.send(new ProducerRecord<>(topic, id, CommandMapper.toRecord(command)), (metadata, error) -> {
            if (error != null) {
                tracker.ended(id, System.nanoTime(), false);
            }
        });
    }

    @Override
    public void close() {
        producer.close();
    }
}
