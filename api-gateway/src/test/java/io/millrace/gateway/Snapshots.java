package io.millrace.gateway;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.avro.ExecutionSnapshot;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Execution snapshots as the executor publishes them, for tests. */
final class Snapshots {
    private Snapshots() {
    }

    /** An execution without task runs that went CREATED, RUNNING, ... up to {@code state}. */
    static ExecutionSnapshot of(String id, String namespace, String flowId, State state) {
        return of(id, namespace, flowId, state, Instant.now().truncatedTo(ChronoUnit.MILLIS), Map.of(), null);
    }

    /** The same, started at {@code at}, with labels and the trigger that started it. */
    static ExecutionSnapshot of(String id, String namespace, String flowId, State state, Instant at, Map<String, String> labels,
            ExecutionTrigger trigger) {
        var histories = new ArrayList<>(List.of(new StateHistory(State.CREATED, at)));
        if (state != State.CREATED) {
            histories.add(new StateHistory(State.RUNNING, at.plusMillis(1)));
        }
        if (state != State.CREATED && state != State.RUNNING) {
            histories.add(new StateHistory(state, at.plusMillis(2)));
        }
        var execution = new Execution(id, namespace, flowId, 1, Map.of(), labels, trigger, state, histories, List.of(),
                state.isTerminal() ? Map.of("answer", 42) : null, state == State.FAILED ? "it broke" : null);
        return new ExecutionSnapshot(ExecutionMapper.toHeaderRecord(execution), Map.of(), at, 0);
    }
}
