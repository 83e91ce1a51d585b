package io.millrace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {

    @Test
    void shouldApplyPrefixedPassThroughToTheMatchingClientOnly() {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "kafka.producer.linger.ms", "0",
                "kafka.consumer.fetch.max.wait.ms", "20",
                "kafka.security.protocol", "PLAINTEXT",
                "kafka.num.standby.replicas", "1"), null);

        // when
        Map<String, Object> producer = KafkaSettings.producer(config, "w1");
        Map<String, Object> consumer = KafkaSettings.consumer(config, "w1");

        // then
        assertThat(producer).containsEntry("linger.ms", "0").containsEntry("security.protocol", "PLAINTEXT")
                .doesNotContainKeys("fetch.max.wait.ms", "num.standby.replicas", "producer.linger.ms");
        assertThat(consumer).containsEntry("fetch.max.wait.ms", "20").containsEntry("security.protocol", "PLAINTEXT")
                .doesNotContainKeys("num.standby.replicas", "consumer.fetch.max.wait.ms");
    }

    @Test
    void shouldKeepTheSettingsTheWorkerDependsOn() {
        // given
        MillraceConfig config = ConfigLoader.load(Map.of(), Map.of(
                "topic-prefix", "p.",
                "worker-group", "gpu",
                "kafka.consumer.enable.auto.commit", "true",
                "kafka.producer.acks", "1"), null);

        // when
        Map<String, Object> producer = KafkaSettings.producer(config, "w1");
        Map<String, Object> consumer = KafkaSettings.consumer(config, "w1");

        // then
        assertThat(consumer).containsEntry("group.id", "p.worker.gpu")
                .containsEntry("enable.auto.commit", false).containsEntry("auto.offset.reset", "earliest");
        assertThat(producer).containsEntry("acks", "all").containsEntry("enable.idempotence", true);
    }

    @Test
    void shouldKeepOneResultRequestInFlightUnderExactlyOnceUnlessToldOtherwise() {
        // given
        MillraceConfig told = ConfigLoader.load(Map.of(), Map.of("kafka.producer.max.in.flight.requests.per.connection", "5"), null);
        MillraceConfig atLeastOnce = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once"), null);

        // when
        Map<String, Object> byDefault = KafkaSettings.producer(ConfigLoader.load(Map.of(), Map.of(), null), "w1");
        Map<String, Object> overridden = KafkaSettings.producer(told, "w1");
        Map<String, Object> kafkasDefault = KafkaSettings.producer(atLeastOnce, "w1");

        // then
        assertThat(byDefault).containsEntry("max.in.flight.requests.per.connection", 1);
        assertThat(overridden).containsEntry("max.in.flight.requests.per.connection", "5");
        assertThat(kafkasDefault).doesNotContainKey("max.in.flight.requests.per.connection");
    }

    @Test
    void shouldSendResultsAtOnceUnderEitherGuarantee() {
        // given
        MillraceConfig atLeastOnce = ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "at_least_once"), null);

        // when
        Map<String, Object> exactlyOnce = KafkaSettings.producer(ConfigLoader.load(Map.of(), Map.of(), null), "w1");
        Map<String, Object> atLeastOnceDefault = KafkaSettings.producer(atLeastOnce, "w1");

        // then
        assertThat(exactlyOnce).containsEntry("linger.ms", 0);
        assertThat(atLeastOnceDefault).containsEntry("linger.ms", 0);
    }

    @Test
    void shouldTakeTasksBeforeTheirTransactionCommitsUnlessToldOtherwise() {
        // given
        MillraceConfig strict = ConfigLoader.load(Map.of(), Map.of("kafka.consumer.isolation.level", "read_committed"), null);

        // when
        Map<String, Object> byDefault = KafkaSettings.consumer(ConfigLoader.load(Map.of(), Map.of(), null), "w1");
        Map<String, Object> told = KafkaSettings.consumer(strict, "w1");

        // then
        assertThat(byDefault).containsEntry("isolation.level", "read_uncommitted");
        assertThat(told).containsEntry("isolation.level", "read_committed");
    }
}
