package io.millrace.gateway;

import io.millrace.config.MillraceConfig;
import io.millrace.core.command.Command;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.KafkaPassThrough;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.serdes.KafkaMeters;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's one producer, for flow revisions and commands: idempotent, acks=all, so an
 * acknowledged record is durable and written once. Timeouts are short so a caller hears of a broker
 * problem in seconds rather than minutes.
 */
final class Publisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Publisher.class);

    private final Producer<String, byte[]> producer;
    private final String flowsTopic;
    private final String commandsTopic;
    private final String auditTopic;
    private final int maxRecordBytes;

    /** @param maxRecordBytes the most bytes of a command the executor takes ({@code max-record-bytes}) */
    Publisher(Producer<String, byte[]> producer, Topics topics, int maxRecordBytes) {
        this.producer = producer;
        this.flowsTopic = topics.flows().name();
        this.commandsTopic = topics.commands().name();
        this.auditTopic = topics.audit().name();
        this.maxRecordBytes = maxRecordBytes;
    }

    static Publisher create(MillraceConfig config) {
        return new Publisher(new KafkaProducer<>(properties(config), new StringSerializer(), new ByteArraySerializer()),
                Topics.of(config), config.executorLimits().maxRecordBytes());
    }

    /** Refuses (413) a command whose record would be over {@code max-record-bytes}; {@code what} names it. */
    void checkSize(Command command, String what) {
        int bytes = Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command)).length;
        if (bytes > maxRecordBytes) {
            throw new ApiException(413, what + " would take " + bytes + " bytes, more than the " + maxRecordBytes
                    + " a record may (max-record-bytes)", List.of());
        }
    }

    /**
     * Defaults, then the pass-through Kafka properties a producer understands ({@link KafkaPassThrough}), then
     * what the gateway's answers depend on: a command is acknowledged only once durable and written once.
     */
    static Map<String, Object> properties(MillraceConfig config) {
        var props = new HashMap<String, Object>();
        props.put(ProducerConfig.CLIENT_ID_CONFIG, config.topicPrefix() + "gateway-producer");
        props.putAll(KafkaPassThrough.engineProducerDefaults(config));
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.PRODUCER, ProducerConfig.configNames()));
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return props;
    }

    /** Blocks until the flow revision is acknowledged. */
    void publishFlow(FlowRecord flow) {
        String key = FlowMapper.key(flow.getNamespace(), flow.getId(), flow.getRevision());
        try {
            send(flowsTopic, key, Topics.FLOW_SERDE.encode(flow)).get();
        } catch (ExecutionException e) {
            String id = ErrorIds.log(LOG, "Unable to store flow " + key, e.getCause());
            throw ApiException.unavailable("Unable to store flow " + key + ": Kafka did not accept it; retry shortly"
                    + " (error id " + id + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("Interrupted while storing flow " + key);
        }
    }

    /** Completes once the command, keyed by its execution id, is acknowledged. */
    CompletableFuture<Void> publishCommand(Command command) {
        return send(commandsTopic, command.executionId(),
                Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command)));
    }

    /** Completes once the audit record is acknowledged. */
    CompletableFuture<Void> publishAudit(String principal, byte[] record) {
        return send(auditTopic, principal, record);
    }

    private CompletableFuture<Void> send(String topic, String key, byte[] value) {
        var acked = new CompletableFuture<Void>();
        try {
            producer.send(new ProducerRecord<>(topic, key, value), (metadata, failure) -> {
                if (failure == null) {
                    acked.complete(null);
                } else {
                    acked.completeExceptionally(failure);
                }
            });
        } catch (RuntimeException e) {
            // send() itself fails when, for instance, no metadata arrives within max.block.ms.
            acked.completeExceptionally(e);
        }
        return acked;
    }

    /** Binds the producer's own metrics; close the result before the producer. */
    AutoCloseable bindMetrics(MeterRegistry registry) {
        return KafkaMeters.bind(producer, registry);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
