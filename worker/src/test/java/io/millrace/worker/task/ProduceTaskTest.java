package io.millrace.worker.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.Json;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Against the shared embedded broker; each test sends to topics of its own. */
class ProduceTaskTest {

    private static final Map<String, Object> VARS = Variables.builder()
            .inputs(Map.of("name", "ada", "rows", List.of(Map.of("key", "j1", "value", "first"), Map.of("key", "j2", "value", "second"))))
            .build();

    private static TaskOutcome produce(Map<String, Object> props) throws InterruptedException {
        return Invocations.execute(Invocations.of("p", TaskTypes.KAFKA_PRODUCE, props, VARS));
    }

    private static Map<String, Object> with(Map<String, Object> props, Object... more) {
        Map<String, Object> all = new HashMap<>(props);
        for (int i = 0; i < more.length; i += 2) {
            all.put((String) more[i], more[i + 1]);
        }
        return all;
    }

    private static Map<String, Object> broker() {
        return Map.of("bootstrap.servers", TestTopics.bootstrapServers());
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static List<String> headers(ConsumerRecord<byte[], byte[]> record) {
        return Arrays.stream(record.headers().toArray()).map(h -> h.key() + "=" + text(h.value())).toList();
    }

    @Test
    void shouldSendRowsWithKeysJsonValuesHeadersAndTopicsOfTheirOwnInOneTransaction() throws Exception {
        // given
        String orders = TestTopics.create("orders", 2);
        String audit = TestTopics.create("audit", 1);
        List<Object> rows = List.of(
                Map.of("key", "order-{{ inputs.name }}", "value", Map.of("id", 1, "who", "{{ inputs.name }}", "items", List.of(1, 2)),
                        "partition", 1, "timestamp", "2024-01-02T03:04:05Z",
                        "headers", Map.of("trace", "t-{{ inputs.name }}")),
                Map.of("key", "order-2", "value", "plain text", "topic", audit, "timestamp", 1_700_000_000_000L,
                        "headers", List.of(Map.of("h", "1"), Map.of("h", "2"))),
                Map.of("key", "order-3", "partition", 0));

        // when
        TaskOutcome outcome = produce(Map.of("properties", broker(), "topic", orders, "valueSerializer", "JSON", "from", rows));

        // then
        assertThat(outcome.error()).isNull();
        assertThat(outcome.outputs()).containsExactly(Map.entry("messagesCount", 3));
        List<ConsumerRecord<byte[], byte[]>> read = TestTopics.readCommitted(3, orders, audit);
        assertThat(read).extracting(r -> text(r.key()), ConsumerRecord::topic, ConsumerRecord::partition).containsExactlyInAnyOrder(
                tuple("order-ada", orders, 1), tuple("order-2", audit, 0), tuple("order-3", orders, 0));
        ConsumerRecord<byte[], byte[]> first = find(read, "order-ada");
        assertThat(Json.MAPPER.readValue(first.value(), Object.class))
                .isEqualTo(Map.of("id", 1, "who", "ada", "items", List.of(1, 2)));
        assertThat(first.timestamp()).isEqualTo(Instant.parse("2024-01-02T03:04:05Z").toEpochMilli());
        assertThat(headers(first)).containsExactly("trace=t-ada");
        ConsumerRecord<byte[], byte[]> second = find(read, "order-2");
        assertThat(text(second.value())).isEqualTo("\"plain text\"");
        assertThat(second.timestamp()).isEqualTo(1_700_000_000_000L);
        assertThat(headers(second)).containsExactly("h=1", "h=2");
        assertThat(find(read, "order-3").value()).isNull();
        // a transaction's commit marker follows its records in each partition
        assertThat(TestTopics.endOffsets(orders, audit)).containsOnly(Map.entry(new TopicPartition(orders, 0), 2L),
                Map.entry(new TopicPartition(orders, 1), 2L), Map.entry(new TopicPartition(audit, 0), 2L));
    }

    private static ConsumerRecord<byte[], byte[]> find(List<ConsumerRecord<byte[], byte[]>> records, String key) {
        return records.stream().filter(r -> key.equals(text(r.key()))).findFirst().orElseThrow();
    }

    @Test
    void shouldSendOneRowWithAPlainProducerWhenNotTransactional() throws Exception {
        // given
        String topic = TestTopics.create("plain", 1);

        // when
        TaskOutcome outcome = produce(Map.of("properties", broker(), "topic", topic, "transactional", false,
                "keySerializer", "INTEGER", "from", Map.of("key", 42, "value", "hello {{ inputs.name }}")));

        // then
        assertThat(outcome.error()).isNull();
        assertThat(outcome.outputs()).containsExactly(Map.entry("messagesCount", 1));
        ConsumerRecord<byte[], byte[]> record = TestTopics.read("read_uncommitted", r -> !r.isEmpty(), topic).getFirst();
        assertThat(record.key()).isEqualTo(ByteBuffer.allocate(4).putInt(42).array());
        assertThat(text(record.value())).isEqualTo("hello ada");
        assertThat(record.headers().toArray()).isEmpty();
        // no transaction, no commit marker
        assertThat(TestTopics.endOffsets(topic)).containsOnly(Map.entry(new TopicPartition(topic, 0), 1L));
    }

    @Test
    void shouldSendTheRowsWhoseJsonATemplateRendersTo() throws Exception {
        // given
        String topic = TestTopics.create("rendered", 1);

        // when
        TaskOutcome outcome = produce(Map.of("properties", broker(), "topic", topic, "from", "{{ inputs.rows }}"));

        // then
        assertThat(outcome.outputs()).containsExactly(Map.entry("messagesCount", 2));
        assertThat(TestTopics.readCommitted(2, topic)).extracting(r -> text(r.key()), r -> text(r.value()))
                .containsExactly(tuple("j1", "first"), tuple("j2", "second"));
    }

    @Test
    void shouldCommitNothingWhenOneRowOfATransactionCannotBeSent() throws Exception {
        // given: the second row is larger than the producer may send
        String topic = TestTopics.create("atomic", 1);
        Map<String, Object> small = with(broker(), "max.request.size", "1024");
        List<Object> rows = List.of(Map.of("value", "small"), Map.of("value", "x".repeat(2048)));

        // when
        TaskOutcome failed = produce(Map.of("properties", small, "topic", topic, "from", rows));
        TaskOutcome after = produce(Map.of("properties", broker(), "topic", topic, "from", Map.of("value", "after")));

        // then: the first run's small row was never committed, so the next run's row is the only one read
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.error()).startsWith("Task 'p': could not send from[1] to topic '" + topic + "': record too large: ")
                .endsWith("; the transaction is aborted, so none of the 2 rows is committed").doesNotContain("\tat ");
        assertThat(after.state()).isEqualTo(State.SUCCESS);
        List<ConsumerRecord<byte[], byte[]>> read = TestTopics.read("read_committed",
                records -> records.stream().anyMatch(r -> "after".equals(text(r.value()))), topic);
        assertThat(read).extracting(r -> text(r.value())).containsExactly("after");
    }

    @Test
    void shouldSayHowManyRowsWereWrittenWhenAPlainSendFails() throws Exception {
        // given
        String topic = TestTopics.create("partial", 1);
        Map<String, Object> small = with(broker(), "max.request.size", "1024");
        List<Object> rows = List.of(Map.of("value", "one"), Map.of("value", "x".repeat(2048)), Map.of("value", "three"));

        // when
        TaskOutcome outcome = produce(Map.of("properties", small, "topic", topic, "transactional", "false", "from", rows));

        // then
        assertThat(outcome.error()).startsWith("Task 'p': could not send from[1] to topic '" + topic + "': record too large: ")
                .endsWith("; 2 of 3 rows were written");
        assertThat(TestTopics.read("read_uncommitted", r -> r.size() >= 2, topic)).extracting(r -> text(r.value()))
                .containsExactly("one", "three");
    }

    @Test
    void shouldRefuseSerializersItDoesNotHave() throws Exception {
        // given
        Map<String, Object> props = Map.of("properties", broker(), "topic", "never-created", "from", Map.of("value", "v"));

        // when
        TaskOutcome avro = produce(with(props, "valueSerializer", "AVRO", "valueAvroSchema", "{}"));
        TaskOutcome protobuf = produce(with(props, "keySerializer", "protobuf"));
        TaskOutcome unknown = produce(with(props, "valueSerializer", "PICKLE"));

        // then
        String supported = "BYTES, BYTE_ARRAY, BYTE_BUFFER, DOUBLE, FLOAT, INTEGER, JSON, LONG, SHORT, STRING, UUID, VOID";
        assertThat(avro).isEqualTo(TaskOutcome.failed(
                "Task 'p': property 'valueSerializer': AVRO is not supported yet; supported: " + supported));
        assertThat(protobuf).isEqualTo(TaskOutcome.failed(
                "Task 'p': property 'keySerializer': PROTOBUF is not supported yet; supported: " + supported));
        assertThat(unknown).isEqualTo(TaskOutcome.failed(
                "Task 'p': property 'valueSerializer' names no serde type: 'PICKLE'; supported: " + supported));
    }

    @Test
    void shouldRefuseAnInternalStorageFrom() throws Exception {
        // when
        TaskOutcome outcome = produce(Map.of("properties", broker(), "topic", "never-created",
                "from", "kestra://company/team/flow/executions/1/rows.ion"));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.failed("Task 'p': property 'from' is an internal-storage URI, which is "
                + "not supported (no internal storage here); give a row (a map), a list of rows, or their JSON"));
    }

    @Test
    void shouldSayWhatCannotBeSentAndSendNothing() throws Exception {
        // given
        String topic = TestTopics.create("checked", 1);
        Map<String, Object> props = Map.of("properties", broker(), "topic", topic);

        // when
        TaskOutcome notAnInteger = produce(with(props, "keySerializer", "INTEGER", "from", List.of(Map.of("key", 1), Map.of("key", "abc"))));
        TaskOutcome misspelt = produce(with(props, "from", Map.of("vlaue", "v")));
        TaskOutcome noTopic = produce(Map.of("properties", broker(), "from", Map.of("value", "v")));
        TaskOutcome noSuchPartition = produce(with(props, "from", Map.of("value", "v", "partition", 3)));
        TaskOutcome badTimestamp = produce(with(props, "from", Map.of("value", "v", "timestamp", "yesterday")));
        TaskOutcome noBrokers = produce(Map.of("properties", Map.of("acks", "all"), "topic", topic, "from", Map.of("value", "v")));
        TaskOutcome badSetting = produce(with(props, "properties", with(broker(), "linger.ms", "soon"), "from", Map.of("value", "v")));
        TaskOutcome ownTransactionalId = produce(with(props, "properties", with(broker(), "transactional.id", "mine"),
                "transactional", false, "from", Map.of("value", "v")));

        // then
        assertThat(notAnInteger.error()).isEqualTo("Task 'p': property 'from[1].key': expected a number, got 'abc'");
        assertThat(misspelt.error()).isEqualTo("Task 'p': property 'from' has an unknown key 'vlaue'; a row has "
                + "[headers, key, offset, partition, timestamp, topic, value]");
        assertThat(noTopic.error()).isEqualTo("Task 'p': property 'from' has no topic, and the task's 'topic' is not set");
        assertThat(noSuchPartition.error()).isEqualTo(
                "Task 'p': property 'from.partition' is 3, but topic '" + topic + "' has 1 partition");
        assertThat(badTimestamp.error()).startsWith("Task 'p': property 'from.timestamp' must be epoch milliseconds or");
        assertThat(noBrokers.error()).isEqualTo("Task 'p': property 'properties' must name the brokers in 'bootstrap.servers'");
        assertThat(badSetting.error()).startsWith("Task 'p': property 'properties' is not a usable Kafka producer configuration: "
                + "config: Invalid value soon for configuration linger.ms");
        assertThat(ownTransactionalId.error()).isEqualTo("Task 'p': property 'properties.transactional.id' makes the producer "
                + "transactional, but 'transactional' is false; remove one of them");
        assertThat(TestTopics.endOffsets(topic)).containsOnly(Map.entry(new TopicPartition(topic, 0), 0L));
    }

    @Test
    void shouldFailWithinThirtySecondsNamingTheTopicWhenNoBrokerAnswers() throws Exception {
        // given: a port nothing listens on
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Map<String, Object> props = Map.of("properties", Map.of("bootstrap.servers", "127.0.0.1:" + port),
                "topic", "ghost", "from", Map.of("value", "boo"));

        // when
        long start = System.nanoTime();
        TaskOutcome outcome = produce(props);

        // then
        assertThat(outcome.error()).startsWith("Task 'p': could not start a transaction to send to topic 'ghost': timeout: ")
                .endsWith("; no row was sent");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void shouldStopWaitingForABrokerWhenInterrupted() throws Exception {
        // given
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        TaskInvocation invocation = Invocations.of("p", TaskTypes.KAFKA_PRODUCE, Map.of("properties",
                Map.of("bootstrap.servers", "127.0.0.1:" + port), "topic", "ghost", "from", Map.of("value", "boo")), VARS);

        // when / then: a timeout or a cancellation is an interruption, not a failure of the task
        assertThat(Invocations.interruptAfter(invocation, Duration.ofMillis(500))).isInstanceOf(InterruptedException.class);
    }
}
