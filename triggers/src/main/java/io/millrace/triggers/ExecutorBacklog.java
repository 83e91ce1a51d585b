package io.millrace.triggers;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * offsets, read every {@link #EVERY}, plus the creates sent since that Kafka did not have when the read began. While
 * more than the limit ({@code trigger-executor-backlog}; 0: no limit) wait, Kafka triggers pause their partitions, so a
 * backlog of events drains at the executor's pace instead of queueing thousands of creates ahead of a REST start on
 * the same topic. A read that fails keeps the last count; if the lag cannot be read for {@link #BLIND_AFTER}, triggers
 * are not held back until it can again.
 */
final class ExecutorBacklog implements AutoCloseable, KafkaTrigger.Pace {
    static final Duration EVERY = Duration.ofMillis(250);
    private static final Duration BLIND_AFTER = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorBacklog.class);

    private final Admin admin;
    private final String topic;
    private final String executorGroup;
    private final long limit;
    private final Thread thread;
    /** Creates sent, and of those the ones settled (in Kafka, or failed), since the start. */
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong settled = new AtomicLong();
    /** The last read: commands unread, and the creates settled before it began (which it counted). */
    private volatile long waiting;
    private volatile long counted;
    private volatile boolean blind;
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
        return limit > 0 && !blind && waiting + sent.get() - counted > limit;
    }

    @Override
    public void sent(int creates) {
        sent.addAndGet(creates);
    }

    @Override
    public void settled(int creates) {
        settled.addAndGet(creates);
    }

    private void watch() {
        long failingSince = 0;
        while (!closed) {
            try {
                long before = settled.get();
                waiting = read();
                counted = before;
                failingSince = 0;
                blind = false;
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                long now = System.nanoTime();
                failingSince = failingSince == 0 ? now : failingSince;
                if (!blind && now - failingSince > BLIND_AFTER.toNanos()) {
                    LOG.warn("The executor's backlog could not be read for {}; triggers are not held back until it can: {}",
                            BLIND_AFTER, e.toString());
                    blind = true;
                }
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
