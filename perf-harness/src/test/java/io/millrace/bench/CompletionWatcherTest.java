package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.State;
import io.millrace.serdes.ExecutionMapper;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompletionWatcherTest {

    @Test
    void shouldPlaceTheExecutorsStartOnThisJvmsClock() {
        // given: an execution the executor started 5 s ago by the wall clock
        Instant started = Instant.now().minusSeconds(5);
        var execution = ExecutionMapper.toRecord(Execution.created("e1", "company.team", "f", 1, Map.of(), Map.of(), null,
                started));
        long nowNanos = 1_000_000_000_000L;

        // when
        long startedNanos = CompletionWatcher.startedNanos(execution, nowNanos);

        // then: 5 s before now on the nanoTime scale, give or take the test's own time
        assertThat(nowNanos - startedNanos).isBetween(5_000_000_000L, 6_000_000_000L);
    }

    @Test
    void shouldPlaceTheExecutorsEndDecisionOnThisJvmsClock() {
        // given: started 5 s ago, ended 2 s ago by the wall clock
        Instant now = Instant.now();
        var execution = ExecutionMapper.toRecord(Execution.created("e1", "company.team", "f", 1, Map.of(), Map.of(), null,
                now.minusSeconds(5)).transition(State.RUNNING, now.minusSeconds(4)).transition(State.SUCCESS,
                now.minusSeconds(2)));
        long nowNanos = 1_000_000_000_000L;

        // when
        long endedNanos = CompletionWatcher.endedNanos(execution, nowNanos);

        // then
        assertThat(nowNanos - endedNanos).isBetween(2_000_000_000L, 3_000_000_000L);
        assertThat(nowNanos - CompletionWatcher.startedNanos(execution, nowNanos))
                .isBetween(5_000_000_000L, 6_000_000_000L);
    }

    @Test
    void shouldKnowNoStartWithoutAHistory() {
        // given
        var execution = ExecutionMapper.toRecord(Execution.created("e1", "company.team", "f", 1, Map.of(), Map.of(), null,
                Instant.now()));
        execution.setHistories(List.of());

        // then
        assertThat(CompletionWatcher.startedNanos(execution, 0)).isEqualTo(Tracker.UNKNOWN);
        assertThat(CompletionWatcher.endedNanos(execution, 0)).isEqualTo(Tracker.UNKNOWN);
    }
}
