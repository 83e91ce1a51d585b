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
 * meets partitions, tasks and brokers; a binder looks for new ones every {@link #REFRESH} on a daemon thread of its own,
 * which stops when the binder is closed (a binder given a scheduler does not stop its refresh task on close). Kafka
 * Streams' are bound with {@code new KafkaStreamsMetrics(streams, List.of(), scheduler, KafkaMeters.REFRESH)} on a
 * {@link #newScheduler} that the owner shuts down with the binder.
 */
public final class KafkaMeters {
    /** How soon a metric Kafka added (a new partition's lag, a new stream task's) is exported. */
    public static final Duration REFRESH = Duration.ofSeconds(10);

    private KafkaMeters() {
    }

    /** A daemon thread for one binder's refresh; shut it down when the binder is closed. */
    public static ScheduledExecutorService newScheduler() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("millrace-kafka-meters").factory());
    }

    /** Binds a producer's metrics; close the result when the producer closes (that also stops its refresh). */
    public static KafkaClientMetrics bind(Producer<?, ?> producer, MeterRegistry registry) {
        ScheduledExecutorService refresh = newScheduler();
        var metrics = new KafkaClientMetrics(producer, List.of(), refresh, REFRESH) {
            @Override
            public void close() {
                refresh.shutdownNow();
                super.close();
            }
        };
        metrics.bindTo(registry);
        return metrics;
    }

    /** Binds a consumer's metrics; close the result when the consumer closes (that also stops its refresh). */
    public static KafkaClientMetrics bind(Consumer<?, ?> consumer, MeterRegistry registry) {
        ScheduledExecutorService refresh = newScheduler();
        var metrics = new KafkaClientMetrics(consumer, List.of(), refresh, REFRESH) {
            @Override
            public void close() {
                refresh.shutdownNow();
                super.close();
            }
        };
        metrics.bindTo(registry);
        return metrics;
    }
}
