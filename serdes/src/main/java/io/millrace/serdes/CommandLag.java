package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The commands the executor has not started, read through an admin client: the end offsets of every partition less
 * the executor group's committed offsets (a partition it never committed counts from 0, where a new executor starts),
 * or less the {@link StartedOffsets started offsets} where those are lower, because creates read there wait for a
 * place. Under exactly-once the group commits with each transaction, so the lag trails the executor by at most its
 * commit interval; it counts transaction markers too, a few a commit, and the other commands among waiting creates.
 *
 * <p>The topic's partitions are described once and kept for {@link #PARTITIONS_KEPT} (a read every 250 ms would
 * otherwise describe a topic whose partitions are set when it is made), and described again after a read that failed.
 */
final class CommandLag implements CommandBacklog.Lag {
    /** How long the topic's partitions, once described, are taken as they are. */
    static final Duration PARTITIONS_KEPT = Duration.ofMinutes(1);
    private static final long TIMEOUT_SECONDS = 5;

    private final Admin admin;
    private final String topic;
    private final String executorGroup;
    private final String startedGroup;
    private final LongSupplier nanoTime;
    /** Commands started, all partitions together, at the last read; -1 before one. */
    private volatile long startedAtLastRead = -1;
    /** The topic's partitions as last described (none: to describe), and when; the reading thread's alone. */
    private List<TopicPartition> partitions = List.of();
    private long describedAt;

    CommandLag(MillraceConfig config) {
        this(Admin.create(TopicAdmin.adminProperties(config)), Topics.of(config).commands().name(),
                Topics.executorApplicationId(config), Topics.executorStartedGroup(config), System::nanoTime);
    }

    CommandLag(Admin admin, String topic, String executorGroup, String startedGroup, LongSupplier nanoTime) {
        this.admin = admin;
        this.topic = topic;
        this.executorGroup = executorGroup;
        this.startedGroup = startedGroup;
        this.nanoTime = nanoTime;
    }

    @Override
    public long read() throws Exception {
        try {
            return lag(partitions());
        } catch (Exception e) {
            partitions = List.of();
            throw e;
        }
    }

    private List<TopicPartition> partitions() throws Exception {
        long now = nanoTime.getAsLong();
        if (partitions.isEmpty() || now - describedAt > PARTITIONS_KEPT.toNanos()) {
            partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .get(topic).partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            describedAt = now;
        }
        return partitions;
    }

    private long lag(List<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(partitions.stream()
                .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        var groups = admin.listConsumerGroupOffsets(Map.of(executorGroup, new ListConsumerGroupOffsetsSpec(),
                startedGroup, new ListConsumerGroupOffsetsSpec()));
        Map<TopicPartition, OffsetAndMetadata> committed = groups.partitionsToOffsetAndMetadata(executorGroup)
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> started = groups.partitionsToOffsetAndMetadata(startedGroup)
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long total = 0;
        long position = 0;
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata read = committed.get(partition);
            OffsetAndMetadata upTo = started.get(partition);
            long from = read == null ? 0 : read.offset();
            if (upTo != null) {
                from = Math.min(from, upTo.offset());
            }
            total += Math.max(0, ends.get(partition).offset() - from);
            position += from;
        }
        startedAtLastRead = position;
        return total;
    }

    @Override
    public long started() {
        return startedAtLastRead;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
