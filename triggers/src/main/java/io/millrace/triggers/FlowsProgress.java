package io.millrace.triggers;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the triggers role has read the flows topic, counting only what its triggers already follow: the flows
 * watcher publishes its positions after it has started and stopped the triggers of what it read.
 */
final class FlowsProgress {
    private volatile Map<TopicPartition, Long> read = Map.of();

    /** The watcher's positions, once the triggers of every flow before them are set. */
    void read(Map<TopicPartition, Long> positions) {
        read = Map.copyOf(positions);
    }

    Set<TopicPartition> partitions() {
        return read.keySet();
    }

    /** Whether every flow record before {@code offsets} was read and its triggers set. */
    boolean reached(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, Long> now = read;
        return offsets.entrySet().stream().allMatch(end -> now.getOrDefault(end.getKey(), -1L) >= end.getValue());
    }
}
