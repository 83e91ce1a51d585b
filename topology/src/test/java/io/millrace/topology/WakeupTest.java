package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WakeupTest {
    private static final long NOW = 1_000_000L;
    private static final Duration INTERVAL = Duration.ofMillis(50);

    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private Wakeup wakeup;

    @BeforeEach
    void create() {
        context.setCurrentSystemTimeMs(NOW);
        wakeup = new Wakeup(context, INTERVAL, timestamp -> { });
    }

    @Test
    void shouldScheduleNothingWhileNothingWaits() {
        assertThat(context.scheduledPunctuators()).isEmpty();
    }

    @Test
    void shouldWakeAtTheEarliestDueTimeOnly() {
        // when
        wakeup.by(NOW + 30_000);
        wakeup.by(NOW + 60_000);
        wakeup.by(NOW + 10_000);

        // then: the later one left alone, the earlier one replacing the first
        List<CapturedPunctuator> scheduled = context.scheduledPunctuators();
        assertThat(scheduled).extracting(CapturedPunctuator::getStartTime)
                .containsExactly(Instant.ofEpochMilli(NOW + 30_000), Instant.ofEpochMilli(NOW + 10_000));
        assertThat(scheduled.getFirst().cancelled()).isTrue();
        assertThat(scheduled.getLast().cancelled()).isFalse();
    }

    @Test
    void shouldKeepWakeUpsOneIntervalApart() {
        // when: something is due already
        wakeup.by(NOW - 5);

        // then
        assertThat(context.scheduledPunctuators()).singleElement()
                .extracting(CapturedPunctuator::getStartTime).isEqualTo(Instant.ofEpochMilli(NOW + INTERVAL.toMillis()));
    }

    @Test
    void shouldScheduleAgainAfterACancel() {
        // given
        wakeup.by(NOW + 10_000);

        // when
        wakeup.cancel();
        wakeup.by(NOW + 20_000);

        // then
        assertThat(context.scheduledPunctuators()).extracting(CapturedPunctuator::cancelled).containsExactly(true, false);
    }
}
