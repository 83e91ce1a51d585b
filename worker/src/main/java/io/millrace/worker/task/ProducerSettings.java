package io.millrace.worker.task;

import io.millrace.serdes.FlowKafkaReach;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The Kafka client configuration of one Produce run: the task's {@code properties} (rendered, as text), with bounds of
 * our own where the flow sets none. Kafka's defaults let a producer wait a minute for a broker that is gone and two
 * more for a record it cannot deliver; with these, a broker that cannot be reached fails the run within about ten
 * seconds and an undeliverable record within about twenty, well before a worker's lease matters. Settings that
 * {@link FlowKafkaReach} refuses (config providers, class names, foreign login modules, the engine's own cluster) fail
 * the run before any client is made.
 */
final class ProducerSettings {

    static final int MAX_BLOCK_MS = 10_000;
    static final int REQUEST_TIMEOUT_MS = 10_000;
    static final int DELIVERY_TIMEOUT_MS = 20_000;

    private ProducerSettings() {
    }

    /**
     * A transactional run gets a transactional.id of its own, as Kestra gives one: no two runs fence each other. A
     * non-transactional run is Kafka's default producer, idempotent unless the flow's settings rule that out.
     */
    static Map<String, Object> of(TaskProperties props, String taskId, boolean transactional, FlowKafkaReach reach)
            throws TaskException {
        if (!(props.required("properties") instanceof Map<?, ?>)) {
            throw props.problem("property 'properties' must be a map of Kafka producer settings, with 'bootstrap.servers'");
        }
        Map<String, Object> config = new HashMap<>();
        for (Map.Entry<?, ?> setting : ((Map<?, ?>) props.deep("properties")).entrySet()) {
            String name = String.valueOf(setting.getKey());
            Object value = setting.getValue();
            if (value == null || value instanceof Map<?, ?> || value instanceof Collection<?>) {
                throw props.problem("property 'properties." + name + "' must be a text value");
            }
            config.put(name, String.valueOf(value));
        }
        if (String.valueOf(config.getOrDefault(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "")).isBlank()) {
            throw props.problem("property 'properties' must name the brokers in 'bootstrap.servers'");
        }
        String refused = reach.refusedSetting(config).orElse(null);
        if (refused != null) {
            throw props.problem(refused);
        }
        config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, Integer.toString(MAX_BLOCK_MS));
        config.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(REQUEST_TIMEOUT_MS));
        if (!config.containsKey(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)) {
            // Kafka refuses a delivery timeout shorter than linger.ms + request.timeout.ms
            long least = millis(config, ProducerConfig.LINGER_MS_CONFIG, 5) + millis(config, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS);
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(Math.max(DELIVERY_TIMEOUT_MS, least)));
        }
        config.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "millrace-produce-" + taskId);
        if (transactional) {
            config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "millrace-produce-" + UUID.randomUUID());
        } else if (config.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            throw props.problem("property 'properties.transactional.id' makes the producer transactional, but "
                    + "'transactional' is false; remove one of them");
        }
        return config;
    }

    private static long millis(Map<String, Object> config, String name, long fallback) {
        try {
            return config.containsKey(name) ? Long.parseLong(String.valueOf(config.get(name)).trim()) : fallback;
        } catch (NumberFormatException e) {
            return fallback; // Kafka names the bad setting when the producer is built
        }
    }
}
