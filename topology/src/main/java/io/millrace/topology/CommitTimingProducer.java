package io.millrace.topology;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * A stream thread's producer that times each of its transactions' commits on the thread's {@link CommitClock}: from
 * sending the consumed offsets to the commit's answer, the round trips the thread blocks on. Kafka Streams calls both
 * on the stream thread.
 *
 * <p>A transactional producer leaves the transaction's last records to the commit instead of flushing them first.
 * Kafka Streams flushes before it sends the consumed offsets: the stream thread waits for the last records' answer,
 * wakes, and only then hands the offsets to the producer's sender thread. {@code commitTransaction} waits for every
 * record of the transaction before it ends it, and fails the transaction when one failed, so that flush adds a wait
 * and a hand-off between two threads and no guarantee; without it the sender goes from the last records to the
 * offsets itself. On 2 cores at 200 W1 executions a second it took about 30 % off the time a commit holds the stream
 * thread (BENCHMARKS.md, 2026-11-29). Kafka Streams reads the changelog offsets the records were written at only after
 * the commit. Without a transaction (at-least-once) the flush is what makes the records safe before their input's
 * offsets are committed, and it stays. Everything else is the wrapped producer's.
 */
final class CommitTimingProducer implements Producer<byte[], byte[]> {
    private final Producer<byte[], byte[]> producer;
    private final boolean transactional;

    /** @param transactional whether {@code producer} has a {@code transactional.id}: its commits send its records */
    CommitTimingProducer(Producer<byte[], byte[]> producer, boolean transactional) {
        this.producer = producer;
        this.transactional = transactional;
    }

    @Override
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
            ConsumerGroupMetadata groupMetadata) throws ProducerFencedException {
        CommitClock.ofThisThread().committing(System.nanoTime());
        producer.sendOffsetsToTransaction(offsets, groupMetadata);
    }

    @Override
    public void commitTransaction() throws ProducerFencedException {
        producer.commitTransaction();
        CommitClock.ofThisThread().committed(System.nanoTime(), System.currentTimeMillis());
    }

    @Override
    public void initTransactions() {
        producer.initTransactions();
    }

    @Override
    public void beginTransaction() throws ProducerFencedException {
        producer.beginTransaction();
    }

    @Override
    public void abortTransaction() throws ProducerFencedException {
        producer.abortTransaction();
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        producer.registerMetricForSubscription(metric);
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        producer.unregisterMetricFromSubscription(metric);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
        return producer.send(record);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        return producer.send(record, callback);
    }

    /** Whether {@link #flush()} leaves the records to the transaction's commit. */
    boolean leavesRecordsToTheCommit() {
        return transactional;
    }

    /** Waits for every record sent to be answered, unless the commit of the transaction they are in will. */
    @Override
    public void flush() {
        if (!transactional) {
            producer.flush();
        }
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return producer.partitionsFor(topic);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return producer.metrics();
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return producer.clientInstanceId(timeout);
    }

    @Override
    public void close() {
        producer.close();
    }

    @Override
    public void close(Duration timeout) {
        producer.close(timeout);
    }
}
