package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class TrackerTest {
    private final Tracker tracker = new Tracker();
    private final LatencyWindow window = new LatencyWindow();

    @Test
    void shouldMeasureFromTheDueTimeToTheTerminalSnapshot() {
        // when
        tracker.started("e1", 1_000_000, window);
        tracker.ended("e1", 8_000_000, true);

        // then
        assertThat(window.percentileMs(50)).isCloseTo(7.0, within(0.01));
        assertThat(tracker.completions()).isEqualTo(1);
    }

    @Test
    void shouldSplitALatencyIntoQueuedRunAndEndToRead() {
        // when: due at 1 ms, started at 3 ms, its end decided at 6 ms, its terminal snapshot read at 8 ms
        tracker.started("e1", 1_000_000, window);
        tracker.ended("e1", 8_000_000, 3_000_000, 6_000_000, true);

        // then
        var breakdown = RateResult.Breakdown.of(window, EngineTimers.NONE, EngineTimers.NONE);
        assertThat(breakdown.queuedMs()).isCloseTo(2.0, within(0.01));
        assertThat(breakdown.runMs()).isCloseTo(3.0, within(0.01));
        assertThat(breakdown.seenMs()).isCloseTo(2.0, within(0.01));
    }

    @Test
    void shouldLeaveTheBreakdownUnknownForFailuresAndUnknownTimes() {
        // when: a failed execution, and one whose end time is not known
        tracker.started("e1", 1_000_000, window);
        tracker.ended("e1", 8_000_000, 3_000_000, 6_000_000, false);
        tracker.started("e2", 1_000_000, window);
        tracker.ended("e2", 8_000_000, 3_000_000, Tracker.UNKNOWN, true);

        // then
        assertThat(window.runPercentileMs(50)).isNaN();
        assertThat(window.seenPercentileMs(50)).isNaN();
        assertThat(window.startPercentileMs(50)).isCloseTo(2.0, within(0.01));
    }

    @Test
    void shouldMeasureFromTheDueTimeToTheExecutorsStartWhenTheSnapshotSaysIt() {
        // when: one execution started 2 ms after it was due, and one whose start is not known
        tracker.started("e1", 1_000_000, window);
        tracker.ended("e1", 8_000_000, 3_000_000, Tracker.UNKNOWN, true);
        tracker.started("e2", 1_000_000, window);
        tracker.ended("e2", 9_000_000, true);

        // then
        assertThat(window.startPercentileMs(99)).isCloseTo(2.0, within(0.01));
        assertThat(window.percentileMs(99)).isCloseTo(8.0, within(0.01));
    }

    @Test
    void shouldKnowNoStartWhenNoSnapshotSaidIt() {
        // when
        tracker.started("e1", 1_000_000, window);
        tracker.ended("e1", 8_000_000, true);

        // then
        assertThat(window.startPercentileMs(99)).isNaN();
    }

    @Test
    void shouldMatchAnEndThatArrivesBeforeTheStartIsKnown() {
        // given: the REST answer with the id arrives after the terminal snapshot
        tracker.ended("e1", 9_000_000, true);

        // when
        tracker.started("e1", 4_000_000, window);

        // then
        assertThat(window.percentileMs(50)).isCloseTo(5.0, within(0.01));
        assertThat(window.failuresAndMissing()).isZero();
    }

    @Test
    void shouldCountEachExecutionOnce() {
        // when: a duplicate terminal snapshot
        tracker.started("e1", 0, window);
        tracker.ended("e1", 1_000_000, true);
        tracker.ended("e1", 2_000_000, true);

        // then
        assertThat(window.completed()).isEqualTo(1);
        assertThat(tracker.completions()).isEqualTo(1);
    }

    @Test
    void shouldCountFailedExecutionsAndFailedStarts() {
        // when
        tracker.started("e1", 0, window);
        tracker.ended("e1", 1_000_000, false);
        tracker.startFailed(window);
        tracker.started("e2", 0, window);

        // then: one failed, one never started, one still running
        assertThat(window.failuresAndMissing()).isEqualTo(3);
        assertThat(window.percentileMs(50)).isNaN();
    }

    @Test
    void shouldCountRefusedAndUnansweredStartsApartFromFailures() {
        // when: a start refused (503 with Retry-After), one never answered, one that succeeded
        tracker.startRefused(window);
        tracker.startUnanswered(window);
        tracker.started("e1", 0, window);
        tracker.ended("e1", 1_000_000, true);

        // then: nothing is waited for, nothing failed
        assertThat(window.refused()).isEqualTo(1);
        assertThat(window.unanswered()).isEqualTo(1);
        assertThat(window.failuresAndMissing()).isZero();
        assertThat(window.expected()).isEqualTo(1);
    }

    @Test
    void shouldForgetEndsNobodyClaimed() {
        // given
        tracker.ended("foreign", 0, true);

        // when: a minute and a bit later
        tracker.forgetUnknown(61_000_000_000L);
        tracker.started("foreign", 0, window);

        // then: it stays open instead of matching a stale end
        assertThat(window.completed()).isZero();
    }
}
