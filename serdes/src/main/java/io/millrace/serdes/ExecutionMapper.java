package io.millrace.serdes;

import io.millrace.core.command.Timer;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.serdes.avro.AttemptRecord;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.StateHistoryRecord;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TaskRunRecord;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.TriggerRecord;
import io.millrace.serdes.avro.WorkerTimesRecord;
import java.util.List;

/** Maps the execution state and timers between domain records and their Avro form. */
public final class ExecutionMapper {
    private ExecutionMapper() {
    }

    public static StateValue toRecord(State state) {
        return StateValue.valueOf(state.name());
    }

    public static State fromRecord(StateValue state) {
        return State.valueOf(state.name());
    }

    public static ExecutionRecord toRecord(Execution e) {
        return new ExecutionRecord(e.id(), e.namespace(), e.flowId(), e.flowRevision(), Json.write(e.inputs()),
                e.labels(), toRecord(e.state()), histories(e.histories()),
                e.taskRuns().stream().map(ExecutionMapper::toRecord).toList(),
                e.outputs() == null ? null : Json.write(e.outputs()), e.error(), toRecord(e.trigger()),
                e.lineage().originalId(), e.lineage().attempt(), e.requestedAt());
    }

    public static Execution fromRecord(ExecutionRecord r) {
        return fromRecord(r, List.of());
    }

    /** An execution from its record, its runs inline (a small execution) or stored apart, in creation order. */
    public static Execution fromRecord(ExecutionRecord header, List<TaskRunRecord> apart) {
        var taskRuns = TaskRuns.of(java.util.stream.Stream.concat(header.getTaskRuns().stream(), apart.stream())
                .map(ExecutionMapper::fromRecord).toList());
        return new Execution(header.getId(), header.getNamespace(), header.getFlowId(), header.getFlowRevision(),
                Json.readMap(header.getInputsJson()), header.getLabels(), fromRecord(header.getTrigger()),
                fromRecord(header.getState()),
                historiesOf(header.getHistories()), taskRuns,
                header.getOutputsJson() == null ? null : Json.readMap(header.getOutputsJson()), header.getError(),
                lineage(header.getOriginalId(), header.getAttempt()), header.getRequestedAt());
    }

    /** The execution without its task runs, which are stored and sent apart. */
    public static ExecutionRecord toHeaderRecord(Execution e) {
        return new ExecutionRecord(e.id(), e.namespace(), e.flowId(), e.flowRevision(), Json.write(e.inputs()),
                e.labels(), toRecord(e.state()), histories(e.histories()), List.of(),
                e.outputs() == null ? null : Json.write(e.outputs()), e.error(), toRecord(e.trigger()),
                e.lineage().originalId(), e.lineage().attempt(), e.requestedAt());
    }

    /** An execution's lineage from its fields (absent in records older than it: the first). */
    static Lineage lineage(String originalId, int attempt) {
        return originalId == null && attempt == 1 ? Lineage.FIRST
                : new Lineage(originalId, attempt);
    }

    public static TriggerRecord toRecord(ExecutionTrigger trigger) {
        return trigger == null ? null : new TriggerRecord(trigger.id(), trigger.type(), Json.write(trigger.variables()));
    }

    public static ExecutionTrigger fromRecord(TriggerRecord trigger) {
        return trigger == null ? null
                : new ExecutionTrigger(trigger.getId(), trigger.getType(), Json.readMap(trigger.getVariablesJson()));
    }

    public static TaskRunRecord toRecord(TaskRun t) {
        return new TaskRunRecord(t.id(), t.taskId(), t.parentTaskRunId(), t.value(), toRecord(t.state()),
                histories(t.histories()),
                t.attempts().stream().map(a -> new AttemptRecord(a.number(), toRecord(a.state()),
                        histories(a.histories()), a.leaseUntil(), a.error(), a.lost(), toRecord(a.worker()))).toList(),
                t.error(), t.iteration());
    }

    public static TaskRun fromRecord(TaskRunRecord r) {
        return new TaskRun(r.getId(), r.getTaskId(), r.getParentTaskRunId(), r.getValue(), r.getIteration(),
                fromRecord(r.getState()), historiesOf(r.getHistories()),
                r.getAttempts().stream().map(a -> new Attempt(a.getNumber(), fromRecord(a.getState()),
                        historiesOf(a.getHistories()), a.getLeaseUntil(), a.getError(), a.getLost(),
                        fromRecord(a.getWorker()))).toList(),
                r.getError());
    }

    public static WorkerTimesRecord toRecord(WorkerTimes times) {
        return times == null ? null : new WorkerTimesRecord(times.received(), times.started(), times.ended());
    }

    public static WorkerTimes fromRecord(WorkerTimesRecord times) {
        return times == null ? null : new WorkerTimes(times.getReceived(), times.getStarted(), times.getEnded());
    }

    private static List<StateHistoryRecord> histories(List<StateHistory> histories) {
        return histories.stream().map(h -> new StateHistoryRecord(toRecord(h.state()), h.date())).toList();
    }

    private static List<StateHistory> historiesOf(List<StateHistoryRecord> records) {
        return records.stream().map(h -> new StateHistory(fromRecord(h.getState()), h.getDate())).toList();
    }

    public static TimerRecord toRecord(Timer t) {
        return new TimerRecord(t.executionId(), t.kind().name(), t.taskRunId(), t.attempt(), t.dueAt());
    }

    public static Timer fromRecord(TimerRecord r) {
        return new Timer(r.getExecutionId(), Timer.Kind.valueOf(r.getKind()), r.getTaskRunId(), r.getAttempt(), r.getDueAt());
    }
}
