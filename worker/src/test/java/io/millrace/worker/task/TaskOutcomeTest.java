package io.millrace.worker.task;

import io.millrace.core.execution.State;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskOutcomeTest {

    @Test
    void shouldCopyOutputsAndAllowJsonNulls() {
        // given
        Map<String, Object> outputs = new HashMap<>();
        outputs.put("value", null);

        // when
        TaskOutcome outcome = TaskOutcome.success(outputs);
        outputs.put("later", 1);

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
        assertThat(outcome.outputs()).containsOnlyKeys("value");
        assertThat(outcome.error()).isNull();
        assertThatThrownBy(() -> outcome.outputs().put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldCarryAnErrorOnlyWhenFailed() {
        // when
        TaskOutcome failed = TaskOutcome.failed("Task 't': boom");

        // then
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.outputs()).isEmpty();
        assertThat(failed.error()).isEqualTo("Task 't': boom");
        assertThatThrownBy(() -> TaskOutcome.failed(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TaskOutcome(State.SUCCESS, Map.of(), "error")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TaskOutcome(State.RUNNING, Map.of(), null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TaskOutcome.warning(Map.of()).state()).isEqualTo(State.WARNING);
    }

    @Test
    void shouldTurnExceptionsIntoFailuresNamingTheTask() throws Exception {
        // given
        RunnableTask broken = invocation -> {
            throw new IllegalStateException("bug");
        };
        RunnableTask nothing = invocation -> null;
        TaskInvocation invocation = Invocations.of("t1", "x", Map.of(), Map.of());

        // when / then
        assertThat(broken.execute(invocation).error())
                .matches("Task 't1' failed unexpectedly: bug; the worker's log has the details under error id [0-9a-z]+");
        assertThat(nothing.execute(invocation).error()).isEqualTo("Task 't1': produced no outcome");
    }

    @Test
    void shouldLetInterruptionsThrough() {
        // given
        RunnableTask cancelled = invocation -> {
            throw new InterruptedException("stop");
        };

        // when / then
        assertThatThrownBy(() -> cancelled.execute(Invocations.of("t1", "x", Map.of(), Map.of())))
                .isInstanceOf(InterruptedException.class);
    }
}
