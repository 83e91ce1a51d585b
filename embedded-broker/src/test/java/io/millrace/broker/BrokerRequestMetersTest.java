package io.millrace.broker;

import static org.assertj.core.api.Assertions.assertThat;

import com.yammer.metrics.core.MetricName;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a broker of its own, as standalone runs one: Kafka keeps the request counters in one registry per JVM, and a
 * broker closed earlier in this JVM (another test's) took them out of it, so the shared broker's may not be there.
 */
class BrokerRequestMetersTest {
    @TempDir
    static Path dataDir;
    private static EmbeddedKafkaBroker broker;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeAll
    static void startABroker() {
        broker = EmbeddedKafkaBroker.start(dataDir, 0);
    }

    @AfterAll
    static void stopTheBroker() {
        broker.close();
    }

    BrokerRequestMetersTest() {
        new BrokerRequestMeters().bindTo(registry);
    }

    @Test
    void shouldCountEachProduceRequestAndItsTime() throws Exception {
        // given
        FunctionTimer produce = timer("millrace.broker.request", "Produce");
        double before = produce.count();
        double timeBefore = produce.totalTime(TimeUnit.MILLISECONDS);
        String topic = topic();

        // when: five sends, each waited for, so five requests
        try (var producer = producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, "k", "v" + i)).get();
            }
        }

        // then
        assertThat(produce.count() - before).isGreaterThanOrEqualTo(5);
        assertThat(produce.totalTime(TimeUnit.MILLISECONDS)).isGreaterThan(timeBefore);
        assertThat(timer("millrace.broker.request.queue", "Produce").count()).isEqualTo(produce.count());
        assertThat(timer("millrace.broker.request.remote", "Produce").count()).isEqualTo(produce.count());
    }

    @Test
    void shouldCountATransactionsCommit() throws Exception {
        // given
        FunctionTimer endTxn = timer("millrace.broker.request", "EndTxn");
        double before = endTxn.count();
        String topic = topic();

        // when
        try (var producer = producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "meters-" + UUID.randomUUID()))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "v"));
            producer.commitTransaction();
        }

        // then
        assertThat(endTxn.count() - before).isGreaterThanOrEqualTo(1);
    }

    @Test
    void shouldCountAFetchOnceWhoeverFetched() {
        // the registry bound in the constructor; the broker's FetchConsumer and FetchFollower are in Fetch already
        assertThat(registry.find("millrace.broker.request").tag("request", "Fetch").functionTimer()).isNotNull();
        assertThat(registry.find("millrace.broker.request").functionTimers())
                .noneMatch(t -> t.getId().getTag("request").startsWith("FetchC")
                        || t.getId().getTag("request").startsWith("FetchF"));
        assertThat(BrokerRequestMeters.request(
                new MetricName("kafka.network", "RequestMetrics", "TotalTimeMs", null,
                        "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer"))).isNull();
        assertThat(BrokerRequestMeters.request(
                new MetricName("kafka.server", "BrokerTopicMetrics", "TotalTimeMs", null,
                        "kafka.server:type=BrokerTopicMetrics,name=TotalTimeMs,request=Produce"))).isNull();
    }

    private FunctionTimer timer(String name, String request) {
        FunctionTimer timer = registry.find(name).tag("request", request).functionTimer();
        assertThat(timer).as("%s{request=%s}", name, request).isNotNull();
        return timer;
    }

    private String topic() throws Exception {
        String topic = "meters-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        return topic;
    }

    private KafkaProducer<String, String> producer(Map<String, Object> extra) {
        var config = new java.util.HashMap<String, Object>(extra);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }
}
