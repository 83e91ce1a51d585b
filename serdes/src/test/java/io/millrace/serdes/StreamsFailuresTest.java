package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

class StreamsFailuresTest {

    @Test
    void shouldFindAnOffsetOutOfRangeAnywhereInTheCauses() {
        var outOfRange = new OffsetOutOfRangeException("Fetch position is out of range",
                Map.of(new TopicPartition("millrace.logs", 0), 42L));
        var wrapped = new StreamsException("Updating global state failed",
                new StreamsException("wrapped again", outOfRange));

        assertThat(StreamsFailures.invalidOffset(wrapped)).isTrue();
        assertThat(StreamsFailures.invalidOffset(new StreamsException("a processor failed", new IllegalStateException())))
                .isFalse();
        assertThat(StreamsFailures.describe(wrapped)).isEqualTo("OffsetOutOfRangeException: Fetch position is out of range");
    }

    @Test
    void shouldTellTheGlobalThreadByItsName() {
        assertThat(StreamsFailures.isGlobalThread(Thread.ofVirtual().name("millrace.gateway-1b2c-GlobalStreamThread")
                .unstarted(() -> { }))).isTrue();
        assertThat(StreamsFailures.isGlobalThread(Thread.ofVirtual().name("millrace.gateway-1b2c-StreamThread-1")
                .unstarted(() -> { }))).isFalse();
    }
}
