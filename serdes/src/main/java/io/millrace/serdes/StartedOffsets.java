package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far the executor has <em>started</em> what it read on each partition of {@code commands}: the offset of the
 * oldest create that still waits for a place ({@code max-running-executions}), and none while none waits (then the
 * executor's own committed offset says it). An executor instance publishes it as the committed offsets of a consumer
 * group of its own, {@link Topics#executorStartedGroup}, that no consumer joins, every {@link #EVERY} when it changed;
 * a partition where none waits has its offset deleted, so no offset outlives the creates it counted.
 *
 * <p>Why a group: a create that waits has been read, so the executor's own lag no longer counts it, yet it is as far
 * from running as one still in the topic. The lag of this group is what the executor has not started, read with any
 * Kafka tool (a producer's backpressure signal, an autoscaler's metric), and it is what {@link CommandLag} counts for
 * the gateway's admission and the triggers' pace. It is a signal, not a record of truth: written outside the
 * executor's transactions, it may trail or lead the executor by one publication, and nothing reads it back to decide.
 */
public final class StartedOffsets implements AutoCloseable {
    public static final Duration EVERY = Duration.ofMillis(250);
    /** What {@link #get} answers for a partition where no create waits, or that was never set. */
    public static final long NONE = -1;
    private static final Logger LOG = LoggerFactory.getLogger(StartedOffsets.class);

    private final String topic;
    private final Map<Integer, Long> offsets = new ConcurrentHashMap<>();
    private final Admin admin;
    private final String group;
    private final Thread thread;
    private volatile boolean closed;

    private StartedOffsets(String topic, Admin admin, String group) {
        this.topic = topic;
        this.admin = admin;
        this.group = group;
        this.thread = admin == null ? null
                : Thread.ofPlatform().daemon().name("millrace-executor-started-offsets").start(this::publishEvery);
    }

    /** Publishes the offsets set to the cluster {@code config} names, in a thread of its own, until closed. */
    public static StartedOffsets published(MillraceConfig config) {
        return new StartedOffsets(Topics.of(config).commands().name(), Admin.create(TopicAdmin.adminProperties(config)),
                Topics.executorStartedGroup(config));
    }

    /** Keeps the offsets set in memory only (a topology under test). */
    public static StartedOffsets kept(String commandsTopic) {
        return new StartedOffsets(commandsTopic, null, null);
    }

    /**
     * Where {@code partition} has started everything before, or {@link #NONE} when no create waits there; called by the
     * stream thread that owns it.
     */
    public void set(int partition, long offset) {
        offsets.put(partition, Math.max(NONE, offset));
    }

    /** The partition's last offset set; {@link #NONE} if none. */
    public long get(int partition) {
        return offsets.getOrDefault(partition, NONE);
    }

    /** The partition went to another instance (or its task closed): this one publishes it no more. */
    public void forget(int partition) {
        offsets.remove(partition);
    }

    private void publishEvery() {
        Map<Integer, Long> published = new HashMap<>();
        while (!closed) {
            var moved = new HashMap<TopicPartition, OffsetAndMetadata>();
            var cleared = new HashSet<TopicPartition>();
            offsets.forEach((partition, offset) -> {
                if (!offset.equals(published.get(partition))) {
                    if (offset == NONE) {
                        cleared.add(new TopicPartition(topic, partition));
                    } else {
                        moved.put(new TopicPartition(topic, partition), new OffsetAndMetadata(offset));
                    }
                }
            });
            try {
                if (!moved.isEmpty()) {
                    admin.alterConsumerGroupOffsets(group, moved).all().get(5, TimeUnit.SECONDS);
                    moved.forEach((partition, offset) -> published.put(partition.partition(), offset.offset()));
                }
                if (!cleared.isEmpty()) {
                    clear(cleared);
                    cleared.forEach(partition -> published.put(partition.partition(), NONE));
                }
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                LOG.debug("The started offsets could not be published; trying again in {}: {}", EVERY, e.toString());
            }
            try {
                Thread.sleep(EVERY);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Deletes the offsets of partitions where nothing waits; a group that never had one has nothing to delete. */
    private void clear(Set<TopicPartition> partitions) throws Exception {
        try {
            admin.deleteConsumerGroupOffsets(group, partitions).all().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
            admin.close(Duration.ofSeconds(5));
        }
    }
}
