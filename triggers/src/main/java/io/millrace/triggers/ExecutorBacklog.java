package io.millrace.triggers;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commands the executor has not read yet: the end offsets of the commands topic less the executor's committed
 * offsets, read every {@link #EVERY}. While more than the limit ({@code trigger-executor-backlog}; 0: no limit) wait,
 * Kafka triggers pause their partitions, so a backlog of events drains at the executor's pace instead of queueing
 * thousands of creates ahead of a REST start on the same topic. If the lag cannot be read, triggers are not held back.
 */
final class ExecutorBacklog implements AutoCloseable, KafkaTrigger.Pace {
    static final Duration EVERY = Duration.ofMillis(250);
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorBacklog.class);

    private final Admin admin;
    private final String topic;
    private final String executorGroup;
    private final long limit;
    private final Thread thread;
    private volatile long waiting;
    /** Creates sent since the last read, which that read may not count yet. */
    private final java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    ExecutorBacklog(MillraceConfig config) {
        this.admin = Admin.create(TopicAdmin.adminProperties(config));
        this.topic = Topics.of(config).commands().name();
        this.executorGroup = Topics.executorApplicationId(config);
        this.limit = config.triggerExecutorBacklog();
        this.thread = Thread.ofPlatform().daemon().name("millrace-triggers-backlog").start(this::watch);
    }

    /** True while the executor has more commands to read than the limit. */
    @Override
    public boolean full() {
        return limit > 0 && waiting + sent.get() > limit;
    }

    @Override
    public void sent(int creates) {
        sent.addAndGet(creates);
    }

    private void watch() {
        while (!closed) {
            try {
                long before = sent.get();
                waiting = read();
                sent.addAndGet(-before);
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                waiting = 0;
                LOG.debug("The executor's backlog could not be read: {}", e.toString());
            }
            try {
                Thread.sleep(EVERY);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private long read() throws Exception {
        List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS)
                .get(topic).partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(partitions.stream()
                .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()))).all().get(5, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(executorGroup)
                .partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
        long total = 0;
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata read = committed.get(partition);
            total += Math.max(0, ends.get(partition).offset() - (read == null ? 0 : read.offset()));
        }
        return total;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        admin.close(Duration.ofSeconds(5));
    }
}
