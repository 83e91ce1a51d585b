package io.millrace.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka floor: open-loop latency of a record through one produce and one consume on the engine's broker,
 * with the settings of the engine's clients (acks=all, fetch.min.bytes 1) but no linger, so that it is the broker's
 * best: the 1 ms the engine's producers linger under exactly-once is part of what the engine adds.
 * Each record carries the time it was due; the consumer in the same JVM measures against it.
 *
 * <p>The exactly-once floor adds the hop an exactly-once executor puts between a command and its committed output:
 * a relay reads each record, writes it to a second topic in a Kafka transaction together with its consumed offsets and
 * commits as soon as a poll gave it anything, then opens the next transaction at once; the measuring consumer reads
 * committed records only. One record thus goes through a plain hop and an exactly-once hop, the pair every execution's
 * start and end make under that guarantee. The same consumer measures each record after its first hop too, so one
 * window gives both floors.
 */
final class FloorProbe {
    private static final int RECORD_BYTES = 256;
    /** The relay's record that opens each transaction; measuring consumers skip it. */
    private static final byte[] PRIMER = new byte[0];

    private final String bootstrapServers;
    private final String topic;
    private final String relayedTopic;

    private FloorProbe(String bootstrapServers, String topic) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.relayedTopic = topic + "-relayed";
    }

    /** Creates (if needed) the probe's own two topics with {@code partitions} partitions each. */
    static FloorProbe create(String bootstrapServers, String topic, int partitions, short replication)
            throws InterruptedException, ExecutionException, TimeoutException {
        var probe = new FloorProbe(bootstrapServers, topic);
        try (Admin admin = admin(bootstrapServers)) {
            for (String name : List.of(probe.topic, probe.relayedTopic)) {
                try {
                    admin.createTopics(List.of(new NewTopic(name, partitions, replication))).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        }
        return probe;
    }

    /**
     * What one floor window measured: every record through one hop, and, when asked for, the same records through the
     * relay's exactly-once hop after it ({@code null} otherwise).
     */
    record Floor(LatencyWindow plain, LatencyWindow exactlyOnce) {
    }

    /**
     * Sends at {@code perSecond} for {@code duration}; one consumer measures each record on the probe's topic and, with
     * {@code exactlyOnce}, again on the relayed topic, so that one window gives both floors.
     */
    Floor measure(double perSecond, Duration duration, boolean exactlyOnce) throws InterruptedException {
        var plain = new LatencyWindow();
        var relayed = exactlyOnce ? new LatencyWindow() : null;
        try (var relay = exactlyOnce ? new Relay() : null;
             var consumer = consumer(Map.of());
             var producer = new KafkaProducer<byte[], byte[]>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            assignAtEnd(consumer, exactlyOnce ? List.of(topic, relayedTopic) : List.of(topic));
            long start = System.nanoTime() + 100_000_000L;
            long end = start + duration.toNanos();
            Thread sender = Thread.ofPlatform().name("bench-floor-sender").start(() ->
                    OpenLoop.run(new RateSchedule(start, perSecond), end, (n, due) -> {
                        plain.expectOne();
                        if (relayed != null) {
                            relayed.expectOne();
                        }
                        byte[] value = ByteBuffer.allocate(RECORD_BYTES).putLong(due).array();
                        producer.send(new ProducerRecord<>(topic, Long.toString(n).getBytes(), value));
                    }));
            long deadline = end + Duration.ofSeconds(10).toNanos();
            while ((sender.isAlive() || !complete(plain) || !complete(relayed)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.value().length == PRIMER.length) {
                        continue;
                    }
                    (r.topic().equals(topic) ? plain : relayed)
                            .recordSuccess(System.nanoTime() - ByteBuffer.wrap(r.value()).getLong());
                }
            }
            sender.join();
        }
        return new Floor(plain, relayed);
    }

    private static boolean complete(LatencyWindow window) {
        return window == null || window.completed() >= window.expected();
    }

    private KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> more) {
        var props = new HashMap<String, Object>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false));
        props.putAll(more);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Assigns every partition of the {@code names} topics and positions at their end, so that only new records are read. */
    private static void assignAtEnd(KafkaConsumer<byte[], byte[]> consumer, List<String> names) {
        List<TopicPartition> partitions = names.stream().flatMap(name -> consumer.partitionsFor(name).stream()
                .map(p -> new TopicPartition(name, p.partition()))).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    /** Deletes the probe's topics. */
    void delete() throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = admin(bootstrapServers)) {
            admin.deleteTopics(Set.of(topic, relayedTopic)).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /**
     * Reads the probe's topic from its end and writes each poll's records to the relayed topic in one transaction with
     * their offsets, as an exactly-once processor that commits at once does.
     */
    private final class Relay implements AutoCloseable {
        private final String id = "bench-floor-relay-" + UUID.randomUUID();
        private final KafkaConsumer<byte[], byte[]> in = consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, id));
        private final KafkaProducer<byte[], byte[]> out = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, id,
                ProducerConfig.LINGER_MS_CONFIG, 1), new ByteArraySerializer(), new ByteArraySerializer());
        private final Thread thread;
        private volatile boolean running = true;

        Relay() {
            out.initTransactions();
            assignAtEnd(in, List.of(topic));
            thread = Thread.ofPlatform().name("bench-floor-relay").start(this::loop);
        }

        private void loop() {
            try {
                begin();
                while (running) {
                    ConsumerRecords<byte[], byte[]> records = in.poll(Duration.ofMillis(100));
                    if (records.isEmpty()) {
                        continue;
                    }
                    var offsets = new HashMap<TopicPartition, OffsetAndMetadata>();
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        out.send(new ProducerRecord<>(relayedTopic, r.key(), r.value()));
                        offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    }
                    // the records first, as an engine step's are sent before its commit: offsets sent while the
                    // transaction is not yet open at the coordinator would be refused and retried after retry.backoff.ms
                    out.flush();
                    out.sendOffsetsToTransaction(offsets, in.groupMetadata());
                    out.commitTransaction();
                    begin();
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                // an open transaction would hold back committed readers of the relayed topic until it timed out
                out.abortTransaction();
            }
        }

        /**
         * Opens the next transaction with a primer record. The coordinator completes a commit after answering it, and
         * the next transaction's first write waits until it has: the primer takes that wait, as an engine's
         * transaction that is already open when an execution ends does, instead of the next relayed record.
         */
        private void begin() {
            out.beginTransaction();
            out.send(new ProducerRecord<>(relayedTopic, PRIMER, PRIMER));
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            in.wakeup();
            thread.join();
            in.close();
            out.close();
        }
    }
}
