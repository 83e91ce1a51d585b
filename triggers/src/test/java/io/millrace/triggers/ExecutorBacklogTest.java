package io.millrace.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The executor's backlog as the triggers count it, against a real commands topic whose executor group has read
 * nothing: creates on their way count until Kafka has them, and then count as the topic's lag.
 */
class ExecutorBacklogTest {
    @Test
    void shouldCountCreatesOnTheirWayUntilTheTopicHasThem() throws Exception {
        // given: a limit of 10 commands unread
        MillraceConfig config = limitOfTen();
        String commands = Topics.of(config).commands().name();

        try (var backlog = new ExecutorBacklog(config)) {
            awaitReads();
            assertThat(backlog.full()).isFalse();

            // when: 20 creates are sent and not yet acknowledged, over several reads of the topic
            backlog.sent(20);
            awaitReads();

            // then: they still count
            assertThat(backlog.full()).as("20 creates on their way, none in the topic yet").isTrue();

            // when: Kafka has them
            write(config, commands, 20);
            backlog.settled(20);
            awaitReads();

            // then: they count as the topic's lag
            assertThat(backlog.full()).as("20 commands the executor has not read").isTrue();
        }
    }

    @Test
    void shouldForgetCreatesWhoseSendFailed() throws Exception {
        // given
        MillraceConfig config = limitOfTen();

        try (var backlog = new ExecutorBacklog(config)) {
            backlog.sent(20);
            assertThat(backlog.full()).isTrue();

            // when: their sends failed: the records are read again later, and counted again when sent again
            backlog.settled(20);
            awaitReads();

            // then
            assertThat(backlog.full()).isFalse();
        }
    }

    /** A limit of 10 commands, and a commands topic of its own that no executor has read. */
    private static MillraceConfig limitOfTen() {
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of("bootstrap-servers", TriggerTests.broker(), "topic-prefix",
                "backlog-" + UUID.randomUUID().toString().substring(0, 8) + ".", "partitions", "2",
                "trigger-executor-backlog", "10"), null);
        TopicAdmin.ensure(config, List.of(Topics.of(config).commands()));
        return config;
    }

    /** Long enough for a few reads of the topic's end and the group's offsets. */
    private static void awaitReads() throws InterruptedException {
        Thread.sleep(ExecutorBacklog.EVERY.multipliedBy(6).toMillis());
    }

    private static void write(MillraceConfig config, String topic, int records) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "command")).get();
            }
        }
    }
}
