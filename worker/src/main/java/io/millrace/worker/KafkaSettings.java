package io.millrace.worker;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.KafkaPassThrough;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The worker's consumer and producer properties: latency-oriented defaults, then the pass-through
 * {@code config.kafka()} entries ({@link KafkaPassThrough}), then the settings the worker's correctness depends
 * on (not overridable).
 */
final class KafkaSettings {
    private KafkaSettings() {
    }

    static String groupId(MillraceConfig config) {
        return config.topicPrefix() + "worker." + config.workerGroup();
    }

    static Map<String, Object> consumer(MillraceConfig config, String workerId) {
        var props = new HashMap<String, Object>();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, workerId + "-tasks");
        // A group's first start must not skip tasks dispatched before it joined.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Answer a fetch as soon as one record is there; bound the idle long-poll.
        props.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        // What one poll hands over is what may wait for a free slot: keep it near the concurrency.
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Math.max(1, Math.min(config.workerConcurrency(), 100)));
        // Under exactly-once a task is taken as soon as the executor sends it, not once its transaction commits: a
        // step's commit no longer delays the next task. A dispatch whose transaction aborts may still run; the
        // executor then dispatches the same task run and attempt again and keeps one result (side effects are at
        // least once in any case). kafka.consumer.isolation.level=read_committed restores the wait.
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.CONSUMER, ConsumerConfig.configNames()));
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(config));
        // Offsets are committed by the poll loop, only for records whose result was produced.
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    /** The kills consumer: no group (it reads every partition itself), committed records only, no commits. */
    static Map<String, Object> killsConsumer(MillraceConfig config, String workerId) {
        var props = new HashMap<String, Object>();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, workerId + "-kills");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.CONSUMER, ConsumerConfig.configNames()));
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    static Map<String, Object> producer(MillraceConfig config, String workerId) {
        var props = new HashMap<String, Object>();
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, workerId + "-results");
        props.putAll(KafkaPassThrough.engineProducerDefaults(config));
        props.putAll(KafkaPassThrough.forClient(config.kafka(), KafkaPassThrough.PRODUCER, ProducerConfig.configNames()));
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        // No loss and no reordering on retries: a heartbeat must never land after its attempt's final result.
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        return props;
    }
}
