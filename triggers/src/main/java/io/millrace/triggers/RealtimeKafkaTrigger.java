package io.millrace.triggers;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@code io.kestra.plugin.kafka.RealtimeTrigger} reads, in the {@link ConsumerLoop}: one create a record, its
 * execution id derived from the record, sent without waiting; a poll's offsets are committed once Kafka has its sends
 * and those of every poll before ({@link #settle}), so after a restart or a rebalance the records since the last commit
 * are read again, and their creates, same ids, are duplicates the executor ignores: each record starts exactly one
 * execution. While the {@link KafkaTrigger.Pace} is full, the partitions are paused (poll still heartbeats).
 */
final class RealtimeKafkaTrigger implements KafkaTrigger.Mode {
    private static final Logger LOG = LoggerFactory.getLogger(RealtimeKafkaTrigger.class);
    private static final Duration POLL = Duration.ofMillis(200);
    static final int MAX_POLLS_IN_FLIGHT = 16;
    static final Duration COMMIT_EVERY = Duration.ofMillis(100);

    /** A poll's sends, and the offsets that follow its records. */
    private record InFlight(List<Future<RecordMetadata>> sends, int creates, Map<TopicPartition, OffsetAndMetadata> next) {
    }

    private final KafkaTrigger trigger;
    private final KafkaTrigger.Pace pace;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final Map<TopicPartition, OffsetAndMetadata> acknowledged = new HashMap<>();
    private KafkaConsumer<byte[], byte[]> consuming;
    private long lastCommit;

    RealtimeKafkaTrigger(KafkaTrigger trigger, KafkaTrigger.Pace pace) {
        this.trigger = trigger;
        this.pace = pace;
    }

    @Override
    public void started(KafkaConsumer<byte[], byte[]> consumer) {
        consuming = consumer;
        dropInFlight();
        acknowledged.clear();
        trigger.subscribe(consumer, this);
    }

    @Override
    public Duration readOnce(KafkaConsumer<byte[], byte[]> consumer) throws Exception {
        // paused partitions keep the group membership (poll still heartbeats) but return nothing
        if (pace.full()) {
            consumer.pause(consumer.assignment());
        } else if (!consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
        handle(consumer.poll(POLL));
        settle(false);
        return Duration.ZERO;
    }

    /**
     * Sends a create (or a dead letter) for each record of a poll, without waiting: the poll's offsets are committed once
     * Kafka has its sends and those of every poll before ({@link #settle}), so reading goes on while they travel.
     */
    private void handle(ConsumerRecords<byte[], byte[]> records) throws Exception {
        if (records.isEmpty()) {
            return;
        }
        var sends = new ArrayList<Future<RecordMetadata>>(records.count());
        var next = new HashMap<TopicPartition, OffsetAndMetadata>();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        int started = 0;
        int unreadable = 0;
        FlowTrigger target = trigger.target();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            next.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
            Map<String, Object> variables;
            try {
                variables = trigger.variables(record);
            } catch (Deserializers.SerdeException e) {
                unreadable++;
                trigger.unreadable(record, e, sends);
                continue;
            } catch (Deserializers.LookupException e) {
                // not the record's fault: the loop reads it again from the last commit
                throw new Deserializers.LookupException("Reading " + record.topic() + "-" + record.partition() + "@"
                        + record.offset() + ": " + e.getMessage());
            }
            String id = TriggerIds.ofRecord(target.namespace(), target.flowId(), target.trigger().id(), record.topic(),
                    record.partition(), record.offset(), record.timestamp());
            sends.add(trigger.create(id, variables, now));
            started++;
        }
        inFlight.add(new InFlight(sends, started, next));
        pace.sent(started);
        trigger.read(started, unreadable);
    }

    /**
     * Takes the polls whose sends Kafka has acknowledged, oldest first (all of them when {@code all}, waiting; and the
     * oldest when more than {@link #MAX_POLLS_IN_FLIGHT} travel), and commits their offsets every {@link #COMMIT_EVERY}
     * (at once when {@code all}). A send that failed throws: the loop starts again from the last commit.
     */
    private void settle(boolean all) throws Exception {
        while (!inFlight.isEmpty() && (all || inFlight.size() > MAX_POLLS_IN_FLIGHT
                || inFlight.peek().sends().stream().allMatch(Future::isDone))) {
            InFlight oldest = inFlight.poll();
            try {
                for (Future<RecordMetadata> send : oldest.sends()) {
                    send.get();
                }
            } catch (ExecutionException e) {
                // the polls after it are read again with it: none of them may be committed (closing commits what is left)
                pace.settled(oldest.creates());
                dropInFlight();
                throw e;
            }
            acknowledged.putAll(oldest.next());
            pace.settled(oldest.creates());
        }
        long now = System.nanoTime();
        if (!acknowledged.isEmpty() && (all || now - lastCommit >= COMMIT_EVERY.toNanos())) {
            consuming.commitSync(acknowledged);
            acknowledged.clear();
            lastCommit = now;
        }
    }

    /** Forgets the polls in flight, to be read again from the last commit; their creates no longer count as coming. */
    private void dropInFlight() {
        inFlight.forEach(poll -> pace.settled(poll.creates()));
        inFlight.clear();
    }

    /** Before partitions go to another consumer, the sends in flight settle and their offsets are committed. */
    @Override
    public void revoked() {
        try {
            settle(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // a send failed: the next owner reads again from the last commit, the ids absorb the repeats
            LOG.warn("Kafka trigger {} gave up partitions with sends that failed: {}", trigger.target().key(), e.toString());
            dropInFlight();
            acknowledged.clear();
        }
    }

    @Override
    public void assigned(Map<TopicPartition, OffsetAndMetadata> committed) {
        // each partition goes on from its committed offset
    }
}
