package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The {@code kafka.*} settings one Kafka client gets, by Kafka Streams' rules, so one section serves every role:
 * a plain key applies when the client knows it (e.g. {@code security.protocol}); a key with the client's prefix
 * ({@code producer.}, {@code consumer.}, {@code admin.}) applies to that client only, prefix stripped, and wins.
 */
public final class KafkaPassThrough {
    public static final String PRODUCER = "producer.";
    public static final String CONSUMER = "consumer.";
    public static final String ADMIN = "admin.";

    private KafkaPassThrough() {
    }

    /**
     * What the engine's own producers (executor, workers, gateway) start from, before the {@code kafka.*} settings: no
     * linger ({@link MillraceConfig#producerLingerMs()}) and, under exactly-once, one request in flight
     * ({@link MillraceConfig#producerRequestsInFlight()}). Plain producer keys, no prefix.
     */
    public static Map<String, Object> engineProducerDefaults(MillraceConfig config) {
        var props = new HashMap<String, Object>();
        props.put(ProducerConfig.LINGER_MS_CONFIG, config.producerLingerMs());
        config.producerRequestsInFlight().ifPresent(requests ->
                props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, requests));
        return props;
    }

    /** Plain keys in {@code clientKeys}, then the {@code prefix}ed ones with the prefix stripped. */
    public static Map<String, Object> forClient(Map<String, String> kafka, String prefix, Set<String> clientKeys) {
        var props = new HashMap<String, Object>();
        kafka.forEach((key, value) -> {
            if (clientKeys.contains(key)) {
                props.put(key, value);
            }
        });
        kafka.forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                props.put(key.substring(prefix.length()), value);
            }
        });
        return props;
    }
}
