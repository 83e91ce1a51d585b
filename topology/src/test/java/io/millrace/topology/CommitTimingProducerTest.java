package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CommitTimingProducerTest {
    @AfterEach
    void forgetThisThreadsCommits() {
        CommitClock.forgetThisThread();
    }

    @Test
    void shouldTimeEachCommitOnTheCommittingThreadsClock() {
        // given
        var kafka = mockProducer(true);
        var producer = inTransaction(kafka);
        long before = System.currentTimeMillis();

        // when
        commitWithOffsets(producer);

        // then
        assertThat(kafka.transactionCommitted()).isTrue();
        assertThat(CommitClock.ofThisThread().endedMillis()).isBetween(before, System.currentTimeMillis());
        assertThat(CommitClock.ofThisThread().durationMillis()).isBetween(0L, 1_000L);
    }

    @Test
    void shouldLeaveATransactionsLastRecordsToItsCommit() {
        // given
        var kafka = mockProducer(false);
        var producer = inTransaction(kafka);
        Future<RecordMetadata> sent = producer.send(new ProducerRecord<>("executions", 0, new byte[] {1}, new byte[] {2}));

        // when
        producer.flush();

        // then
        assertThat(sent).isNotDone();
        commitWithOffsets(producer);
        assertThat(sent).isDone();
        assertThat(kafka.transactionCommitted()).isTrue();
        assertThat(kafka.history()).hasSize(1);
    }

    @Test
    void shouldFlushAProducerWithoutTransactions() {
        // given
        var producer = new CommitTimingProducer(mockProducer(false), false);
        Future<RecordMetadata> sent = producer.send(new ProducerRecord<>("executions", 0, new byte[] {1}, new byte[] {2}));

        // when
        producer.flush();

        // then
        assertThat(sent).isDone();
    }

    @Test
    void shouldGiveTheExecutorsStreamThreadsProducersThatTimeTheirCommits() {
        // given
        var properties = ExecutorTopology.properties(ConfigLoader.load(Map.of(), Map.of(), null));

        // when
        var clients = new StreamsConfig(properties).getKafkaClientSupplier();

        // then
        assertThat(clients).isInstanceOf(CommitTimingClients.class);
        try (var producer = clients.getProducer(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9"))) {
            assertThat(producer).isInstanceOf(CommitTimingProducer.class);
        }
    }

    @Test
    void shouldLeaveTheLastRecordsToTheCommitOnlyForATransactionalProducer() {
        // given
        var clients = new CommitTimingClients();
        var plain = Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        var transactional = Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9",
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "executor-1");

        // when
        try (var withoutTransactions = (CommitTimingProducer) clients.getProducer(plain);
                var withTransactions = (CommitTimingProducer) clients.getProducer(transactional)) {

            // then
            assertThat(withoutTransactions.leavesRecordsToTheCommit()).isFalse();
            assertThat(withTransactions.leavesRecordsToTheCommit()).isTrue();
        }
    }

    /** @param autoComplete whether each send is answered at once; otherwise at a flush or a commit */
    private static MockProducer<byte[], byte[]> mockProducer(boolean autoComplete) {
        return new MockProducer<>(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static CommitTimingProducer inTransaction(MockProducer<byte[], byte[]> kafka) {
        var producer = new CommitTimingProducer(kafka, true);
        producer.initTransactions();
        producer.beginTransaction();
        return producer;
    }

    /** As Kafka Streams commits: the consumed offsets, then the transaction. */
    private static void commitWithOffsets(CommitTimingProducer producer) {
        producer.sendOffsetsToTransaction(Map.of(new TopicPartition("commands", 0), new OffsetAndMetadata(1)),
                new ConsumerGroupMetadata("executor"));
        producer.commitTransaction();
    }
}
