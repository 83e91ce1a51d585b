package io.millrace.serdes;

import io.millrace.config.MillraceConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 */
final class CommandLag implements CommandBacklog.Lag {
    private static final long TIMEOUT_SECONDS = 5;

    private final Admin admin;
    private final String topic;
    private final String executorGroup;
    private final String startedGroup;
    /** Commands started, all partitions together, at the last read; -1 before one. */
    private volatile long startedAtLastRead = -1;

    CommandLag(MillraceConfig config) {
        this.admin = Admin.create(TopicAdmin.adminProperties(config));
        this.topic = Topics.of(config).commands().name();
        this.executorGroup = Topics.executorApplicationId(config);
        this.startedGroup = Topics.executorStartedGroup(config);
    }

    @Override
    public long read() throws Exception {
        List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(topic).partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
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
