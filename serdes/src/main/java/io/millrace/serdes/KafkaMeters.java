package io.millrace.serdes;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Kafka's own client metrics in a role's registry, through Micrometer's Kafka binders. Kafka adds metrics as a client
 * meets partitions, tasks and brokers; the binders look for new ones every {@link #REFRESH}, all on one daemon thread.
 * Kafka Streams' are bound with {@code KafkaStreamsMetrics(streams, List.of(), KafkaMeters.scheduler(),
 * KafkaMeters.REFRESH)}.
 */
public final class KafkaMeters {
    /** How soon a metric Kafka added (a new partition's lag, a new stream task's) is exported. */
    public static final Duration REFRESH = Duration.ofSeconds(10);
    private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("millrace-kafka-meters").factory());

    private KafkaMeters() {
    }

    /** The thread the binders refresh on; they never shut it down. */
    public static ScheduledExecutorService scheduler() {
        return SCHEDULER;
    }

    /** Binds a producer's metrics; close the result when the producer closes. */
    public static KafkaClientMetrics bind(Producer<?, ?> producer, MeterRegistry registry) {
        var metrics = new KafkaClientMetrics(producer, List.of(), SCHEDULER, REFRESH);
        metrics.bindTo(registry);
        return metrics;
    }

    /** Binds a consumer's metrics; close the result when the consumer closes. */
    public static KafkaClientMetrics bind(Consumer<?, ?> consumer, MeterRegistry registry) {
        var metrics = new KafkaClientMetrics(consumer, List.of(), SCHEDULER, REFRESH);
        metrics.bindTo(registry);
        return metrics;
    }
}
