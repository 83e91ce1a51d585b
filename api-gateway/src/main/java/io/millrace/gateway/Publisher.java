package io.millrace.gateway;

import io.millrace.config.MillraceConfig;
import io.millrace.core.command.Command;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The gateway's one producer, for flow revisions and commands: idempotent, acks=all, so an
 * acknowledged record is durable and written once. Timeouts are short so a caller hears of a broker
 * problem in seconds rather than minutes.
 */
final class Publisher implements AutoCloseable {
    private final Producer<String, byte[]> producer;
    private final Topics topics;

    Publisher(Producer<String, byte[]> producer, Topics topics) {
        this.producer = producer;
        this.topics = topics;
    }

    static Publisher create(MillraceConfig config) {
        return new Publisher(new KafkaProducer<>(properties(config), new StringSerializer(), new ByteArraySerializer()),
                Topics.of(config));
    }

    /**
     * Defaults, then the pass-through Kafka properties a producer understands: plain ones (security,
     * for instance) and {@code producer.}-prefixed ones, which win, as in Kafka Streams.
     */
    static Map<String, Object> properties(MillraceConfig config) {
        var props = new HashMap<String, Object>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, config.topicPrefix() + "gateway-producer");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        config.kafka().forEach((key, value) -> {
            if (ProducerConfig.configNames().contains(key)) {
                props.put(key, value);
            }
        });
        String prefix = StreamsConfig.PRODUCER_PREFIX;
        config.kafka().forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                props.put(key.substring(prefix.length()), value);
            }
        });
        return props;
    }

    /** Blocks until the flow revision is acknowledged. */
    void publishFlow(FlowRecord flow) {
        String key = FlowMapper.key(flow.getNamespace(), flow.getId(), flow.getRevision());
        try {
            send(topics.flows().name(), key, Topics.FLOW_SERDE.encode(flow)).get();
        } catch (ExecutionException e) {
            throw ApiException.unavailable("Unable to store flow " + key + ": " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("Interrupted while storing flow " + key);
        }
    }

    /** Completes once the command, keyed by its execution id, is acknowledged. */
    CompletableFuture<Void> publishCommand(Command command) {
        return send(topics.commands().name(), command.executionId(),
                Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command)));
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

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
