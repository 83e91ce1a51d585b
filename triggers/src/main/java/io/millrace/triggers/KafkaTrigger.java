package io.millrace.triggers;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.flow.TriggerDef;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code io.kestra.plugin.kafka.RealtimeTrigger} of one flow: a consumer in the trigger's {@code groupId} on the
 * cluster its {@code properties} name, starting one execution per record. Each record's execution id is derived from
 * the record (flow, trigger, topic, partition, offset, timestamp), and the group's offsets are committed only past
 * records whose create commands Kafka has, with those of every earlier record (see {@link #settle}): after a crash, a restart or a rebalance the records since the last commit
 * are read again and their creates, same ids, are duplicates the executor ignores. So each record starts exactly one
 * execution. A record whose key or value does not read as the trigger's serde type follows {@code onSerdeError}
 * (SKIPPED, the default: counted and logged; DLQ: copied as it came to the named topic on the trigger's cluster, with
 * the error in a header) and never stops the trigger. If Kafka fails, or a deserializer cannot look up what it needs
 * (AVRO's schema registry is down), the consumer starts again from the last commit: the record is read again later,
 * never skipped.
 */
final class KafkaTrigger implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaTrigger.class);
    static final String ERROR_HEADER = "millrace.error";
    private static final Duration POLL = Duration.ofMillis(200);

    private final FlowTrigger target;
    private final Producer<String, byte[]> commands;
    private final String commandsTopic;
    private final TriggerMetrics metrics;
    private final Deserializers.Deserializer keys;
    private final Deserializers.Deserializer values;
    private final String onSerdeError;
    private final Thread thread;
    private final Pace pace;
    private final Instant savedAt;
    /** For {@code io.kestra.plugin.kafka.Trigger}: how it batches; null for a RealtimeTrigger. */
    private final Batching batching;
    /** Partitions whose committed offset names the last offset of a batch that may not have started (see batchOnce). */
    private final Map<TopicPartition, Long> pendingEnds = new HashMap<>();
    private final java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);
    /** A poll's sends, and the offsets that follow its records. */
    private record InFlight(List<Future<RecordMetadata>> sends, int creates, Map<TopicPartition, OffsetAndMetadata> next) {
    }

    static final int MAX_POLLS_IN_FLIGHT = 16;
    static final Duration COMMIT_EVERY = Duration.ofMillis(100);
    private final java.util.ArrayDeque<InFlight> inFlight = new java.util.ArrayDeque<>();
    private final Map<TopicPartition, OffsetAndMetadata> acknowledged = new HashMap<>();
    private long lastCommit;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean closed;
    private Producer<byte[], byte[]> deadLetters;

    /** What paces a trigger: it reads nothing while {@link #full()}, and tells how many creates it sent. */
    interface Pace {
        Pace NONE = new Pace() {
            @Override
            public boolean full() {
                return false;
            }

            @Override
            public void sent(int creates) {
            }

            @Override
            public void settled(int creates) {
            }
        };

        boolean full();

        /** Creates handed to the producer. */
        void sent(int creates);

        /** Creates of {@link #sent} that Kafka now has, or will never have (their send failed). */
        void settled(int creates);
    }

    KafkaTrigger(FlowTrigger target, Producer<String, byte[]> commands, String commandsTopic, TriggerMetrics metrics,
            SchemaRegistries registries) {
        this(target, commands, commandsTopic, metrics, registries, Pace.NONE, null);
    }

    /**
     * @param savedAt when the flow revision that declared this trigger was saved: where a new group starts unless the
     *     trigger says otherwise ({@code since}, or {@code auto.offset.reset} in its properties); null: Kafka's reset
     */
    KafkaTrigger(FlowTrigger target, Producer<String, byte[]> commands, String commandsTopic, TriggerMetrics metrics,
            SchemaRegistries registries, Pace pace, Instant savedAt) {
        this.pace = pace;
        this.savedAt = savedAt;
        this.target = target;
        this.batching = Batching.of(target.trigger());
        this.commands = commands;
        this.commandsTopic = commandsTopic;
        this.metrics = metrics;
        TriggerDef trigger = target.trigger();
        Map<?, ?> serdeProperties = trigger.properties().get("serdeProperties") instanceof Map<?, ?> given ? given : Map.of();
        this.keys = Deserializers.of(trigger.text("keyDeserializer"), serdeProperties, registries);
        this.values = Deserializers.of(trigger.text("valueDeserializer"), serdeProperties, registries);
        this.onSerdeError = trigger.properties().get("onSerdeError") instanceof Map<?, ?> onError
                && "DLQ".equalsIgnoreCase(String.valueOf(onError.get("type"))) ? String.valueOf(onError.get("topic")) : null;
        this.thread = Thread.ofPlatform().name("millrace-trigger-" + target.key()).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** The trigger as its flow declared it when it started. */
    FlowTrigger target() {
        return target;
    }

    private void run() {
        var backoff = new Backoff();
        while (!closed) {
            try (var consuming = new KafkaConsumer<>(consumerProperties(), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                consumer = consuming;
                dropInFlight();
                acknowledged.clear();
                subscribe(consuming);
                while (!closed && batching != null) {
                    batchOnce(consuming);
                    backoff.reset();
                    if (closing.await(batching.interval().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        return;
                    }
                }
                while (!closed) {
                    // paused partitions keep the group membership (poll still heartbeats) but return nothing
                    if (pace.full()) {
                        consuming.pause(consuming.assignment());
                    } else if (!consuming.paused().isEmpty()) {
                        consuming.resume(consuming.paused());
                    }
                    handle(consuming, consuming.poll(POLL));
                    settle(consuming, false);
                    backoff.reset();
                }
            } catch (WakeupException e) {
                // closing
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                LOG.warn("Kafka trigger {} failed; it reads again from its last commit in {}: {}", target.key(), backoff.next(),
                        e.toString());
                metrics.restarted(target);
                if (!backoff.pause()) {
                    return;
                }
            }
        }
    }

    /**
     * Sends a create (or a dead letter) for each record of a poll, without waiting: the poll's offsets are committed once
     * Kafka has its sends and those of every poll before ({@link #settle}), so reading goes on while they travel.
     */
    private void handle(KafkaConsumer<byte[], byte[]> consuming, ConsumerRecords<byte[], byte[]> records) throws Exception {
        if (records.isEmpty()) {
            return;
        }
        var sends = new ArrayList<Future<RecordMetadata>>(records.count());
        var next = new HashMap<TopicPartition, OffsetAndMetadata>();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        int started = 0;
        int unreadable = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            next.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
            Map<String, Object> variables;
            try {
                variables = variables(record);
            } catch (Deserializers.SerdeException e) {
                unreadable++;
                unreadable(record, e, sends);
                continue;
            } catch (Deserializers.LookupException e) {
                // not the record's fault: read it again from the last commit
                throw new Deserializers.LookupException("Reading " + record.topic() + "-" + record.partition() + "@"
                        + record.offset() + ": " + e.getMessage());
            }
            String id = TriggerIds.ofRecord(target.namespace(), target.flowId(), target.trigger().id(), record.topic(),
                    record.partition(), record.offset(), record.timestamp());
            sends.add(create(id, variables, now));
            started++;
        }
        inFlight.add(new InFlight(sends, started, next));
        pace.sent(started);
        metrics.read(target, started, unreadable, onSerdeError != null);
    }

    /**
     * Takes the polls whose sends Kafka has acknowledged, oldest first (all of them when {@code all}, waiting; and the
     * oldest when more than {@link #MAX_POLLS_IN_FLIGHT} travel), and commits their offsets every {@link #COMMIT_EVERY}
     * (at once when {@code all}). A send that failed throws: the consumer starts again from the last commit.
     */
    private void settle(KafkaConsumer<byte[], byte[]> consuming, boolean all) throws Exception {
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

    /**
     * {@code io.kestra.plugin.kafka.Trigger}'s settings: a batch every {@code interval} (default PT60S) of at most
     * {@code maxRecords} records (default 500) and {@link #MAX_BATCH_BYTES} of keys and values, read for at most
     * {@code maxDuration} (default {@code pollDuration}, default PT5S) or until a poll brings nothing.
     */
    record Batching(Duration interval, int maxRecords, Duration maxDuration) {
        /** A batch's messages travel inline with its execution: this bounds them (the records past it wait). */
        static final long MAX_BATCH_BYTES = 256 * 1024;

        static Batching of(TriggerDef trigger) {
            if (!trigger.type().equals(io.millrace.core.flow.TriggerTypes.KAFKA_BATCH)) {
                return null;
            }
            Duration poll = trigger.text("pollDuration") == null ? Duration.ofSeconds(5) : Duration.parse(trigger.text("pollDuration"));
            return new Batching(
                    trigger.text("interval") == null ? Duration.ofSeconds(60) : Duration.parse(trigger.text("interval")),
                    trigger.text("maxRecords") == null ? 500 : Integer.parseInt(trigger.text("maxRecords")),
                    trigger.text("maxDuration") == null ? poll : Duration.parse(trigger.text("maxDuration")));
        }
    }

    /**
     * One batch, exactly once: the records are taken (each partition from its committed offset), then the offsets are
     * committed where they were with the batch's last offsets as metadata, then the batch's create is sent (its id
     * derived from the batch's ranges), then the offsets are committed past the batch. A crash between the first commit
     * and the last leaves the metadata: the next batch of those partitions is then the same records again (same
     * ranges, same id, a duplicate the executor ignores), whatever arrived since. (If those partitions are split
     * between instances by then, each takes its part: the records may then start a second execution.)
     */
    private void batchOnce(KafkaConsumer<byte[], byte[]> consuming) throws Exception {
        var taken = new ArrayList<ConsumerRecord<byte[], byte[]>>();
        var first = new java.util.TreeMap<TopicPartition, Long>(java.util.Comparator.comparing(TopicPartition::toString));
        var last = new HashMap<TopicPartition, Long>();
        var stopped = new java.util.HashSet<TopicPartition>();
        Map<TopicPartition, Long> pending = new HashMap<>(pendingEnds);
        if (!pending.isEmpty()) {
            var others = new java.util.HashSet<>(consuming.assignment());
            others.removeAll(pending.keySet());
            consuming.pause(others);
        }
        long bytes = 0;
        long deadline = System.nanoTime() + (pending.isEmpty() ? batching.maxDuration() : Duration.ofSeconds(30)).toNanos();
        while (System.nanoTime() < deadline) {
            var records = consuming.poll(POLL);
            if (pending.isEmpty() && pendingEnds.size() > 0) {
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
                var others = new java.util.HashSet<>(consuming.assignment());
                others.removeAll(pending.keySet());
                consuming.pause(others);
                deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
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
            return;
        }
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
                messages.add(variables(record));
            } catch (Deserializers.SerdeException e) {
                unreadable++;
                unreadable(record, e, sends);
            }
        }
        if (!messages.isEmpty()) {
            String id = TriggerIds.of(ranges.toArray(String[]::new));
            var variables = new LinkedHashMap<String, Object>();
            variables.put("messagesCount", messages.size());
            variables.put("messages", messages);
            sends.add(create(id, variables, Instant.now().truncatedTo(ChronoUnit.MILLIS)));
        }
        pace.sent(messages.isEmpty() ? 0 : 1);
        try {
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        } finally {
            pace.settled(messages.isEmpty() ? 0 : 1);
        }
        consuming.commitSync(after);
        pendingEnds.keySet().removeAll(first.keySet());
        pendingEnds.keySet().removeAll(pending.keySet());
        metrics.read(target, messages.isEmpty() ? 0 : 1, unreadable, onSerdeError != null);
    }

    /** Sends the create of an execution of the flow that this trigger started with {@code variables}. */
    private Future<RecordMetadata> create(String id, Map<String, Object> variables, Instant now) {
        var create = new CreateExecution(id, target.namespace(), target.flowId(), null, Map.of(), target.trigger().labels(),
                now, new ExecutionTrigger(target.trigger().id(), target.trigger().type(), variables));
        return commands.send(new ProducerRecord<>(commandsTopic, id, Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(create))));
    }

    /** The metadata of a committed offset that begins an unfinished batch, before the batch's last offset. */
    static final String BATCH_METADATA = "millrace-batch:";

    private static long size(ConsumerRecord<byte[], byte[]> record) {
        return Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
    }

    /** Kestra's variables of a record: key and value (absent when null), topic, partition, offset, timestamp, headers. */
    private Map<String, Object> variables(ConsumerRecord<byte[], byte[]> record)
            throws Deserializers.SerdeException, Deserializers.LookupException {
        var variables = new LinkedHashMap<String, Object>();
        Object key = keys.read(record.key());
        Object value = values.read(record.value());
        if (key != null) {
            variables.put("key", key);
        }
        if (value != null) {
            variables.put("value", value);
        }
        variables.put("topic", record.topic());
        variables.put("partition", record.partition());
        variables.put("offset", record.offset());
        variables.put("timestamp", Instant.ofEpochMilli(record.timestamp()).toString());
        var headers = new ArrayList<Map<String, String>>();
        for (Header header : record.headers()) {
            headers.add(Map.of(header.key(), header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8)));
        }
        variables.put("headers", headers);
        return variables;
    }

    private void unreadable(ConsumerRecord<byte[], byte[]> record, Deserializers.SerdeException e,
            List<Future<RecordMetadata>> sends) {
        if (onSerdeError == null) {
            LOG.warn("Kafka trigger {} skipped the unreadable record {}-{}@{}: {}", target.key(), record.topic(),
                    record.partition(), record.offset(), e.getMessage());
            return;
        }
        var copy = new ProducerRecord<>(onSerdeError, null, record.timestamp(), record.key(), record.value(), record.headers());
        copy.headers().add(ERROR_HEADER, (record.topic() + "-" + record.partition() + "@" + record.offset() + ": "
                + e.getMessage()).getBytes(StandardCharsets.UTF_8));
        sends.add(deadLetters().send(copy));
    }

    private Producer<byte[], byte[]> deadLetters() {
        if (deadLetters == null) {
            var props = new HashMap<String, Object>(clientProperties());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "millrace-trigger-" + target.key() + "-dlq");
            deadLetters = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        }
        return deadLetters;
    }

    private void subscribe(KafkaConsumer<byte[], byte[]> consuming) {
        Object topic = target.trigger().properties().get("topic");
        ConsumerRebalanceListener since = rebalanceListener(consuming);
        if (topic instanceof Collection<?> many) {
            consuming.subscribe(many.stream().map(String::valueOf).toList(), since);
        } else if (topic != null) {
            consuming.subscribe(List.of(topic.toString()), since);
        } else {
            consuming.subscribe(Pattern.compile(target.trigger().text("topicPattern")), since);
        }
    }

    /**
     * Before partitions go to another consumer, the sends in flight settle and their offsets are committed, so the next
     * owner starts after them. A partition the group has no offset for yet starts at its first record from
     * {@link #startsFrom()}, and that start is committed (see {@link StartPositions}).
     */
    private ConsumerRebalanceListener rebalanceListener(KafkaConsumer<byte[], byte[]> consuming) {
        Instant from = startsFrom();
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                try {
                    settle(consuming, true);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    // a send failed: the next owner reads again from the last commit, the ids absorb the repeats
                    LOG.warn("Kafka trigger {} gave up partitions with sends that failed: {}", target.key(), e.toString());
                    dropInFlight();
                    acknowledged.clear();
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (partitions.isEmpty()) {
                    return;
                }
                Map<TopicPartition, OffsetAndMetadata> committed = consuming.committed(Set.copyOf(partitions));
                if (batching != null) {
                    committed.forEach((partition, offset) -> {
                        if (offset != null && offset.metadata() != null && offset.metadata().startsWith(BATCH_METADATA)) {
                            pendingEnds.put(partition, Long.parseLong(offset.metadata().substring(BATCH_METADATA.length())));
                        }
                    });
                }
                Set<TopicPartition> fresh = StartPositions.fresh(partitions, committed);
                if (from != null && !fresh.isEmpty()) {
                    // the ends first: a partition with no record from then starts at the end it had before the
                    // question, so a record written meanwhile is read (seekToEnd would be evaluated later, past it)
                    Map<TopicPartition, Long> ends = consuming.endOffsets(fresh);
                    var times = new HashMap<TopicPartition, Long>();
                    fresh.forEach(partition -> times.put(partition, from.toEpochMilli()));
                    consuming.offsetsForTimes(times).forEach((partition, offset) ->
                            consuming.seek(partition, offset == null ? ends.get(partition) : offset.offset()));
                }
                StartPositions.keep(consuming, fresh, "Kafka trigger " + target.key());
            }
        };
    }

    /**
     * Where a new group starts reading: {@code since}, if given; else, unless the properties name Kafka's
     * {@code auto.offset.reset}, the first record written after the flow revision that declared the trigger was saved
     * (by the records' timestamps), so a record written right after a deploy is read even if the consumer joins its
     * group later; null: Kafka's reset policy.
     */
    private Instant startsFrom() {
        String since = target.trigger().text("since");
        if (since != null) {
            return OffsetDateTime.parse(since).toInstant();
        }
        return clientProperties().containsKey(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG) ? null : savedAt;
    }

    private Map<String, Object> clientProperties() {
        var props = new HashMap<String, Object>();
        if (target.trigger().properties().get("properties") instanceof Map<?, ?> given) {
            given.forEach((k, v) -> props.put(String.valueOf(k), String.valueOf(v)));
        }
        return props;
    }

    private Map<String, Object> consumerProperties() {
        var props = clientProperties();
        props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, target.trigger().text("groupId"));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "millrace-trigger-" + target.key());
        return props;
    }

    @Override
    public void close() {
        closed = true;
        closing.countDown();
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        try {
            thread.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (deadLetters != null) {
            deadLetters.close(Duration.ofSeconds(5));
        }
    }
}
