package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.broker.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The Kafka floor on a real broker: every record sent on schedule is consumed and measured. */
class FloorProbeTest {

    @Test
    void shouldMeasureEveryRecordOfTheWindow() throws Exception {
        // given
        String servers = EmbeddedKafkaBroker.shared().bootstrapServers();
        FloorProbe probe = FloorProbe.create(servers, "floor-" + UUID.randomUUID(), 2, (short) 1);

        // when: 100 records/s for one second
        FloorProbe.Floor floor = probe.measure(100, Duration.ofSeconds(1), false);
        probe.delete();

        // then
        LatencyWindow window = floor.plain();
        assertThat(floor.exactlyOnce()).isNull();
        assertThat(window.expected()).isEqualTo(100);
        assertThat(window.completed()).isEqualTo(100);
        assertThat(window.failuresAndMissing()).isZero();
        assertThat(window.percentileMs(50)).isPositive();
        assertThat(window.maxMs()).isGreaterThanOrEqualTo(window.percentileMs(50));
    }

    @Test
    void shouldMeasureEveryRecordThroughTheExactlyOnceRelay() throws Exception {
        // given
        String servers = EmbeddedKafkaBroker.shared().bootstrapServers();
        FloorProbe probe = FloorProbe.create(servers, "floor-eo-" + UUID.randomUUID(), 2, (short) 1);

        // when: 100 records/s for one second, then again with a new relay on the same topics
        FloorProbe.Floor first = probe.measure(100, Duration.ofSeconds(1), true);
        FloorProbe.Floor second = probe.measure(100, Duration.ofSeconds(1), true);
        probe.delete();

        // then: each record arrives once on each topic, committed, and the second window sees none of the first's
        for (LatencyWindow window : List.of(first.plain(), first.exactlyOnce(), second.plain(), second.exactlyOnce())) {
            assertThat(window.expected()).isEqualTo(100);
            assertThat(window.completed()).isEqualTo(100);
            assertThat(window.failuresAndMissing()).isZero();
            assertThat(window.percentileMs(50)).isPositive();
        }
    }
}
