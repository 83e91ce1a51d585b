package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.broker.EmbeddedKafkaBroker;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CommandLagTest {
    private final Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            EmbeddedKafkaBroker.shared().bootstrapServers()));
    private final AtomicInteger describes = new AtomicInteger();
    private final AtomicLong clock = new AtomicLong();
    private final AtomicBoolean failNextListing = new AtomicBoolean();

    @AfterEach
    void close() {
        admin.close();
    }

    @Test
    void shouldDescribeTheTopicOnceAMinuteNotEachRead() throws Exception {
        // given: three commands on two partitions that no executor read
        String topic = "lag-" + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        send(topic, "a", "b", "c");
        var lag = new CommandLag(counting(admin), topic, "no-executor-" + topic, "no-started-" + topic, clock::get);

        // when
        long first = lag.read();
        long second = lag.read();
        clock.addAndGet(CommandLag.PARTITIONS_KEPT.toNanos() + 1);
        long third = lag.read();

        // then
        assertThat(List.of(first, second, third)).containsOnly(3L);
        assertThat(describes.get()).isEqualTo(2);
    }

    @Test
    void shouldDescribeAgainAfterAReadThatFailed() throws Exception {
        // given: a read that described the topic, then one whose offsets could not be listed
        String topic = "lag-" + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        send(topic, "a");
        var lag = new CommandLag(counting(admin), topic, "no-executor-" + topic, "no-started-" + topic, clock::get);
        assertThat(lag.read()).isEqualTo(1);
        failNextListing.set(true);
        assertThatThrownBy(lag::read).hasMessage("injected");

        // when
        long after = lag.read();

        // then: the partitions were described again (the topic may have changed meanwhile)
        assertThat(after).isEqualTo(1);
        assertThat(describes.get()).isEqualTo(2);
    }

    /** The admin client, counting its topic descriptions. */
    private Admin counting(Admin real) {
        return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("describeTopics")) {
                        describes.incrementAndGet();
                    }
                    if (method.getName().equals("listOffsets") && failNextListing.getAndSet(false)) {
                        throw new TimeoutException("injected");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static void send(String topic, String... keys) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                EmbeddedKafkaBroker.shared().bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            for (String key : keys) {
                producer.send(new ProducerRecord<>(topic, key, key)).get();
            }
        }
    }
}
