package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RateScheduleTest {

    @Test
    void shouldSpaceStartsEvenlyFromTheOriginWhateverHappened() {
        // given
        var schedule = new RateSchedule(1_000, 200);

        // then: every 5 ms, never shifted by how late a send was
        assertThat(schedule.dueNanos(0)).isEqualTo(1_000);
        assertThat(schedule.dueNanos(1)).isEqualTo(5_001_000);
        assertThat(schedule.dueNanos(200)).isEqualTo(1_000_001_000L);
    }

    @Test
    void shouldKeepFractionalIntervalsWithoutDrift() {
        // given: 3 per second is a 333,333,333.3 ns interval
        var schedule = new RateSchedule(0, 3);

        // then: after 3,000 starts exactly 1,000 s have passed
        assertThat(schedule.dueNanos(3_000)).isEqualTo(1_000_000_000_000L);
    }

    @Test
    void shouldCountTheStartsDueBeforeAnEndTime() {
        // given
        var schedule = new RateSchedule(0, 100);

        // then: starts at 0, 10, 20 ... ms
        assertThat(schedule.countBefore(0)).isZero();
        assertThat(schedule.countBefore(1)).isEqualTo(1);
        assertThat(schedule.countBefore(10_000_000)).isEqualTo(1);
        assertThat(schedule.countBefore(10_000_001)).isEqualTo(2);
        assertThat(schedule.countBefore(1_000_000_000)).isEqualTo(100);
    }

    @Test
    void shouldRefuseANonPositiveRate() {
        assertThatThrownBy(() -> new RateSchedule(0, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
    }

    @Test
    void shouldSendEveryDueStartInOrderWithItsDueTime() {
        // given: a schedule whose whole window is already in the past, so nothing waits
        long origin = System.nanoTime() - 1_000_000_000L;
        var schedule = new RateSchedule(origin, 1_000);
        var dues = new java.util.ArrayList<Long>();

        // when
        long sent = OpenLoop.run(schedule, origin + 50_000_000L, (i, due) -> {
            assertThat(i).isEqualTo(dues.size());
            dues.add(due);
        });

        // then: late sends keep their due times (latency is measured from them)
        assertThat(sent).isEqualTo(50);
        assertThat(dues).hasSize(50).first().isEqualTo(origin);
        assertThat(dues.getLast()).isEqualTo(origin + 49_000_000L);
    }

    @Test
    void shouldResumeTheScheduleWhereTheFirstPartStopped() {
        // given
        long origin = System.nanoTime() - 1_000_000_000L;
        var schedule = new RateSchedule(origin, 1_000);
        var indexes = new java.util.ArrayList<Long>();

        // when: two parts, as the sweep runs a window
        long next = OpenLoop.run(schedule, 0, origin + 20_000_000L, (i, due) -> indexes.add(i));
        long after = OpenLoop.run(schedule, next, origin + 50_000_000L, (i, due) -> indexes.add(i));

        // then: no start is lost or repeated at the seam
        assertThat(next).isEqualTo(20);
        assertThat(after).isEqualTo(50);
        assertThat(indexes).hasSize(50).doesNotHaveDuplicates().last().isEqualTo(49L);
    }
}
