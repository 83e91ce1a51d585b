package io.millrace.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.Json;
import io.millrace.serdes.KafkaPassThrough;
import io.millrace.serdes.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail: each change made through the API, and each read of the access file, with its principal, time,
 * action, target, status and outcome, written to the {@code audit} topic (JSON, keyed by principal) and to the log
 * {@code io.millrace.audit}. A record the topic does not take is logged there in full and counted
 * ({@code millrace_gateway_audit_failures_total}). Admins read the latest records back ({@code GET /api/v1/audit}).
 */
final class Audit {
    /** The principal of what the gateway does by itself. */
    static final String GATEWAY = "gateway";
    /** The most records one read returns. */
    static final int MAX_READ = 1000;
    private static final Logger LOG = LoggerFactory.getLogger("io.millrace.audit");
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private final Publisher publisher;
    private final Clock clock;
    private final String topic;
    private final Supplier<Consumer<String, byte[]>> readers;
    private final Counter failures;

    Audit(Publisher publisher, Clock clock, String topic, Supplier<Consumer<String, byte[]>> readers,
            MeterRegistry registry) {
        this.publisher = publisher;
        this.clock = clock;
        this.topic = topic;
        this.readers = readers;
        this.failures = Counter.builder("millrace_gateway_audit_failures_total")
                .description("Audit records the audit topic did not take (each is in the log)").register(registry);
    }

    static Audit of(MillraceConfig config, Publisher publisher, Clock clock, MeterRegistry registry) {
        var props = new HashMap<String, Object>();
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.CONSUMER,
                ConsumerConfig.configNames()));
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, config.topicPrefix() + "gateway-audit-reader");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new Audit(publisher, clock, Topics.of(config).audit().name(),
                () -> new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer()), registry);
    }

    /**
     * Writes one record.
     *
     * @param status the HTTP status of the answer (for a reload of the access file: 200 read, 400 refused)
     * @param outcome what came of it, in words
     */
    void record(String principal, String action, String target, int status, String outcome) {
        ObjectNode entry = Json.MAPPER.createObjectNode()
                .put("time", clock.instant().truncatedTo(ChronoUnit.MILLIS).toString())
                .put("principal", principal)
                .put("action", action)
                .put("target", target)
                .put("status", status)
                .put("outcome", outcome);
        String line = entry.toString(); // written once, for the log and the topic
        LOG.info("{}", line);
        publisher.publishAudit(principal, line.getBytes(StandardCharsets.UTF_8)).whenComplete((acked, failure) -> {
            if (failure != null) {
                failures.increment();
                LOG.error("The audit topic did not take this record, which only this log has: {}", line, failure);
            }
        });
    }

    private static Instant time(JsonNode entry) {
        try {
            return Instant.parse(entry.path("time").asText());
        } catch (DateTimeParseException notATime) {
            return Instant.EPOCH;
        }
    }

    /** The latest {@code limit} records (at most {@link #MAX_READ}), newest first. */
    List<JsonNode> latest(int limit) {
        var found = new ArrayList<JsonNode>();
        try (Consumer<String, byte[]> reader = readers.get()) {
            List<TopicPartition> partitions = reader.partitionsFor(topic, READ_TIMEOUT).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            reader.assign(partitions);
            Map<TopicPartition, Long> ends = reader.endOffsets(partitions, READ_TIMEOUT);
            Map<TopicPartition, Long> begins = reader.beginningOffsets(partitions, READ_TIMEOUT);
            var open = new ArrayList<TopicPartition>();
            for (TopicPartition partition : partitions) {
                long from = Math.max(begins.get(partition), ends.get(partition) - limit);
                reader.seek(partition, from);
                if (from < ends.get(partition)) {
                    open.add(partition);
                }
            }
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!open.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : reader.poll(Duration.ofMillis(200))) {
                    try {
                        found.add(Json.MAPPER.readTree(record.value()));
                    } catch (IOException | RuntimeException notJson) {
                        LOG.warn("Audit record at {}-{}@{} is not JSON; left out", topic, record.partition(),
                                record.offset());
                    }
                }
                open.removeIf(partition -> reader.position(partition) >= ends.get(partition));
            }
        }
        found.sort(Comparator.comparing(Audit::time).reversed());
        return found.subList(0, Math.min(limit, found.size()));
    }
}
