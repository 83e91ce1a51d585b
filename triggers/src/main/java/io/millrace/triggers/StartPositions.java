package io.millrace.triggers;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a trigger's consumer starts on a partition its group has no offset for: the group's reset policy (Kafka's
 * {@code latest} unless the trigger says otherwise), or the trigger's {@code since}. That start is committed at once,
 * so a trigger listens from the moment it first got the partition: if it stops before reading a record, it resumes
 * from that commit instead of from the end of the partition again, and the records written meanwhile are not skipped.
 */
final class StartPositions {
    private static final Logger LOG = LoggerFactory.getLogger(StartPositions.class);

    private StartPositions() {
    }

    /** The partitions of {@code assigned} that have no offset in {@code committed}. */
    static Set<TopicPartition> fresh(Collection<TopicPartition> assigned, Map<TopicPartition, OffsetAndMetadata> committed) {
        return Set.copyOf(assigned.stream().filter(partition -> committed.get(partition) == null).toList());
    }

    /** Commits each fresh partition's position; called from a rebalance listener's {@code onPartitionsAssigned}. */
    static void keep(Consumer<?, ?> consumer, Set<TopicPartition> fresh, String owner) {
        if (fresh.isEmpty()) {
            return;
        }
        var start = new HashMap<TopicPartition, OffsetAndMetadata>();
        try {
            fresh.forEach(partition -> start.put(partition, new OffsetAndMetadata(consumer.position(partition))));
            consumer.commitSync(start);
        } catch (KafkaException e) {
            // the next assignment tries again; until then a restart starts from the reset policy, as Kafka would
            LOG.warn("{} could not keep where it starts reading {}: {}", owner, fresh, e.toString());
        }
    }
}
