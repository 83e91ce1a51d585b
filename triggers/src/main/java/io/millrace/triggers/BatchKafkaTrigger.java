package io.millrace.triggers;

import io.millrace.core.flow.TriggerDef;
import io.millrace.core.flow.TriggerTypes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How a {@code io.kestra.plugin.kafka.Trigger} reads, in the {@link ConsumerLoop}: a batch every {@code interval}, one
 * create a batch, exactly once (see {@link #readOnce}).
 */
final class BatchKafkaTrigger implements KafkaTrigger.Mode {
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long the records of an unfinished batch are looked for before the batch is formed with those found. */
    private static final Duration PENDING_WAIT = Duration.ofSeconds(30);
    /** The metadata of a committed offset that begins an unfinished batch, before the batch's last offset. */
    static final String BATCH_METADATA = "millrace-batch:";

    /**
     * {@code io.kestra.plugin.kafka.Trigger}'s settings: a batch every {@code interval} (default PT60S) of at most
     * {@code maxRecords} records (default 500) and {@link #MAX_BATCH_BYTES} of keys and values, read for at most
     * {@code maxDuration} (default {@code pollDuration}, default PT5S) or until a poll brings nothing.
     */
    record Batching(Duration interval, int maxRecords, Duration maxDuration) {
        /** A batch's messages travel inline with its execution: this bounds them (the records past it wait). */
        static final long MAX_BATCH_BYTES = 256 * 1024;

        /** The trigger's batching; null when it is not a batch trigger. */
        static Batching of(TriggerDef trigger) {
            if (!trigger.type().equals(TriggerTypes.KAFKA_BATCH)) {
                return null;
            }
            Duration poll = trigger.text("pollDuration") == null ? Duration.ofSeconds(5) : Duration.parse(trigger.text("pollDuration"));
            return new Batching(
                    trigger.text("interval") == null ? Duration.ofSeconds(60) : Duration.parse(trigger.text("interval")),
                    trigger.text("maxRecords") == null ? 500 : Integer.parseInt(trigger.text("maxRecords")),
                    trigger.text("maxDuration") == null ? poll : Duration.parse(trigger.text("maxDuration")));
        }
    }

    private final KafkaTrigger trigger;
    private final Batching batching;
    private final KafkaTrigger.Pace pace;
    /** Partitions whose committed offset names the last offset of a batch that may not have started (see readOnce). */
    private final Map<TopicPartition, Long> pendingEnds = new HashMap<>();

    BatchKafkaTrigger(KafkaTrigger trigger, Batching batching, KafkaTrigger.Pace pace) {
        this.trigger = trigger;
        this.batching = batching;
        this.pace = pace;
    }

    @Override
    public void started(KafkaConsumer<byte[], byte[]> consumer) {
        trigger.subscribe(consumer, this);
    }

    @Override
    public void revoked() {
        // a batch's offsets are committed before its round ends
    }

    /** A partition whose committed offset carries {@link #BATCH_METADATA} has a batch to finish first. */
    @Override
    public void assigned(Map<TopicPartition, OffsetAndMetadata> committed) {
        committed.forEach((partition, offset) -> {
            if (offset != null && offset.metadata() != null && offset.metadata().startsWith(BATCH_METADATA)) {
                pendingEnds.put(partition, Long.parseLong(offset.metadata().substring(BATCH_METADATA.length())));
            }
        });
    }

    /**
     * One batch, exactly once: the records are taken (each partition from its committed offset), then the offsets are
     * committed where they were with the batch's last offsets as metadata, then the batch's create is sent (its id
     * derived from the batch's ranges), then the offsets are committed past the batch. A crash between the first commit
     * and the last leaves the metadata: the next batch of those partitions is then the same records again (same
     * ranges, same id, a duplicate the executor ignores), whatever arrived since. (If those partitions are split
     * between instances by then, each takes its part: the records may then start a second execution.) The next batch
     * is formed an {@code interval} later.
     */
    @Override
    public Duration readOnce(KafkaConsumer<byte[], byte[]> consuming) throws Exception {
        var taken = new ArrayList<ConsumerRecord<byte[], byte[]>>();
        var first = new TreeMap<TopicPartition, Long>(Comparator.comparing(TopicPartition::toString));
        var last = new HashMap<TopicPartition, Long>();
        var stopped = new HashSet<TopicPartition>();
        Map<TopicPartition, Long> pending = new HashMap<>(pendingEnds);
        if (!pending.isEmpty()) {
            var others = new HashSet<>(consuming.assignment());
            others.removeAll(pending.keySet());
            consuming.pause(others);
        }
        long bytes = 0;
        long deadline = System.nanoTime() + (pending.isEmpty() ? batching.maxDuration() : PENDING_WAIT).toNanos();
        while (System.nanoTime() < deadline) {
            var records = consuming.poll(POLL);
            if (pending.isEmpty() && !pendingEnds.isEmpty()) {
                // the first poll's assignment found an unfinished batch: form that one first
                pending.putAll(pendingEnds);
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    if (!stopped.contains(partition)) {
                        consuming.seek(partition, record.offset());
                        stopped.add(partition);
                    }
                }
                stopped.clear();
                var others = new HashSet<>(consuming.assignment());
                others.removeAll(pending.keySet());
                consuming.pause(others);
                deadline = System.nanoTime() + PENDING_WAIT.toNanos();
                continue;
            }
            var resumeAt = new HashMap<TopicPartition, Long>();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                boolean full = pending.isEmpty() && (taken.size() >= batching.maxRecords()
                        || !taken.isEmpty() && bytes + size(record) > Batching.MAX_BATCH_BYTES);
                boolean past = pending.containsKey(partition) && record.offset() > pending.get(partition);
                if (stopped.contains(partition) || full || past) {
                    // not this batch's: the partition is read again from here
                    resumeAt.putIfAbsent(partition, record.offset());
                    stopped.add(partition);
                    continue;
                }
                taken.add(record);
                bytes += size(record);
                first.putIfAbsent(partition, record.offset());
                last.put(partition, record.offset());
                if (pending.containsKey(partition) && record.offset() == pending.get(partition)) {
                    stopped.add(partition);
                }
            }
            resumeAt.forEach(consuming::seek);
            boolean done = pending.isEmpty()
                    ? records.isEmpty() || taken.size() >= batching.maxRecords() || !stopped.isEmpty()
                    : stopped.containsAll(pending.keySet());
            if (done) {
                break;
            }
        }
        consuming.resume(consuming.paused());
        if (taken.isEmpty()) {
            pendingEnds.keySet().removeAll(pending.keySet());
            return batching.interval();
        }
        send(consuming, taken, first, last);
        pendingEnds.keySet().removeAll(first.keySet());
        pendingEnds.keySet().removeAll(pending.keySet());
        return batching.interval();
    }

    /** Marks the batch in the group's offsets, sends its create (and its dead letters), then commits past it. */
    private void send(KafkaConsumer<byte[], byte[]> consuming, List<ConsumerRecord<byte[], byte[]>> taken,
            Map<TopicPartition, Long> first, Map<TopicPartition, Long> last) throws Exception {
        FlowTrigger target = trigger.target();
        var mark = new HashMap<TopicPartition, OffsetAndMetadata>();
        var after = new HashMap<TopicPartition, OffsetAndMetadata>();
        var ranges = new ArrayList<String>(List.of("kafka-batch", target.namespace(), target.flowId(), target.trigger().id()));
        first.forEach((partition, offset) -> {
            mark.put(partition, new OffsetAndMetadata(offset, BATCH_METADATA + last.get(partition)));
            after.put(partition, new OffsetAndMetadata(last.get(partition) + 1));
            ranges.add(partition + ":" + offset + "-" + last.get(partition));
        });
        consuming.commitSync(mark);
        var sends = new ArrayList<Future<RecordMetadata>>();
        var messages = new ArrayList<Map<String, Object>>();
        int unreadable = 0;
        for (ConsumerRecord<byte[], byte[]> record : taken) {
            try {
                messages.add(trigger.variables(record));
            } catch (Deserializers.SerdeException e) {
                unreadable++;
                trigger.unreadable(record, e, sends);
            }
        }
        if (!messages.isEmpty()) {
            String id = TriggerIds.of(ranges.toArray(String[]::new));
            var variables = new LinkedHashMap<String, Object>();
            variables.put("messagesCount", messages.size());
            variables.put("messages", messages);
            sends.add(trigger.create(id, variables, Instant.now().truncatedTo(ChronoUnit.MILLIS)));
        }
        int creates = messages.isEmpty() ? 0 : 1;
        pace.sent(creates);
        try {
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        } finally {
            pace.settled(creates);
        }
        consuming.commitSync(after);
        trigger.read(creates, unreadable);
    }

    private static long size(ConsumerRecord<byte[], byte[]> record) {
        return Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
    }
}
