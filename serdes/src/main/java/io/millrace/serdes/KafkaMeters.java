package io.millrace.serdes;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Kafka's own client metrics in a role's registry, through Micrometer's Kafka binders. Kafka adds metrics as a client
 * meets partitions, tasks and brokers; a binder looks for new ones every {@link #REFRESH} on a daemon thread of its own,
 * which {@link Bound#close} stops (a binder given a scheduler does not stop its refresh task on close). Kafka Streams'
 * are bound with {@code KafkaMeters.bind(registry, refresh -> new KafkaStreamsMetrics(streams, List.of(), refresh,
 * KafkaMeters.REFRESH))}.
 */
public final class KafkaMeters {
    /** How soon a metric Kafka added (a new partition's lag, a new stream task's) is exported. */
    public static final Duration REFRESH = Duration.ofSeconds(10);

    private KafkaMeters() {
    }

    /** A bound binder and its refresh thread; close it when its client closes. */
    public record Bound(AutoCloseable binder, ScheduledExecutorService refresh) implements AutoCloseable {
        @Override
        public void close() {
            refresh.shutdownNow();
            try {
                binder.close();
            } catch (Exception e) {
                throw new IllegalStateException("Unable to close Kafka metrics", e);
            }
        }
    }

    /** Binds the binder {@code create} makes for a refresh thread of its own. */
    public static <B extends MeterBinder & AutoCloseable> Bound bind(MeterRegistry registry,
            Function<ScheduledExecutorService, B> create) {
        ScheduledExecutorService refresh = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("millrace-kafka-meters").factory());
        B binder = create.apply(refresh);
        binder.bindTo(registry);
        return new Bound(binder, refresh);
    }

    /** Binds a producer's metrics. */
    public static Bound bind(Producer<?, ?> producer, MeterRegistry registry) {
        return bind(registry, refresh -> new KafkaClientMetrics(producer, List.of(), refresh, REFRESH));
    }

    /** Binds a consumer's metrics. */
    public static Bound bind(Consumer<?, ?> consumer, MeterRegistry registry) {
        return bind(registry, refresh -> new KafkaClientMetrics(consumer, List.of(), refresh, REFRESH));
    }
}
