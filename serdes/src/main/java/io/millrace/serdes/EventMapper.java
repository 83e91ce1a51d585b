package io.millrace.serdes;

import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionPurged;
import io.millrace.core.event.ExecutionRestarted;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunAttemptEnded;
import io.millrace.core.event.TaskRunAttemptStarted;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunCreated;
import io.millrace.core.event.TaskRunLeaseExtended;
import io.millrace.core.event.TaskRunPaused;
import io.millrace.core.event.TaskRunReset;
import io.millrace.core.event.TaskRunResumed;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionCompletedEvent;
import io.millrace.serdes.avro.ExecutionCreatedEvent;
import io.millrace.serdes.avro.ExecutionPurgedEvent;
import io.millrace.serdes.avro.ExecutionRestartedEvent;
import io.millrace.serdes.avro.ExecutionStateChangedEvent;
import io.millrace.serdes.avro.LaterEvent;
import io.millrace.serdes.avro.TaskRunAttemptEndedEvent;
import io.millrace.serdes.avro.TaskRunAttemptStartedEvent;
import io.millrace.serdes.avro.TaskRunCompletedEvent;
import io.millrace.serdes.avro.TaskRunCreatedEvent;
import io.millrace.serdes.avro.TaskRunLeaseExtendedEvent;
import io.millrace.serdes.avro.TaskRunPausedEvent;
import io.millrace.serdes.avro.TaskRunResetEvent;
import io.millrace.serdes.avro.TaskRunResumedEvent;
import io.millrace.serdes.avro.TaskRunRetryingEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps events between domain records and the Avro envelope of the events topic: one record holds the events of one
 * step of one execution, in order (a record written before version 7 holds one).
 */
public final class EventMapper {
    private EventMapper() {
    }

    /** One record of events of one execution, in order; at least one. */
    public static EventRecord toRecord(String executionId, List<? extends Event> events) {
        Event first = events.getFirst();
        var then = new ArrayList<LaterEvent>(events.size() - 1);
        for (int i = 1; i < events.size(); i++) {
            then.add(new LaterEvent(events.get(i).at(), payload(events.get(i))));
        }
        return new EventRecord(executionId, first.at(), payload(first), then);
    }

    /** The record's events, in order. */
    public static List<Event> fromRecord(EventRecord record) {
        var events = new ArrayList<Event>(1 + record.getThen().size());
        events.add(event(record.getExecutionId(), record.getPayload(), record.getAt()));
        for (LaterEvent later : record.getThen()) {
            events.add(event(record.getExecutionId(), later.getPayload(), later.getAt()));
        }
        return events;
    }

    private static Object payload(Event event) {
        return switch (event) {
            case ExecutionCreated e -> new ExecutionCreatedEvent(e.namespace(), e.flowId(), e.flowRevision(),
                    Json.write(e.inputs()), e.labels(), ExecutionMapper.toRecord(e.trigger()), e.lineage().originalId(),
                    e.lineage().attempt(), e.requestedAt());
            case ExecutionStateChanged e -> new ExecutionStateChangedEvent(ExecutionMapper.toRecord(e.state()));
            case ExecutionCompleted e -> new ExecutionCompletedEvent(ExecutionMapper.toRecord(e.state()),
                    e.outputs() == null ? null : Json.write(e.outputs()), e.error());
            case ExecutionPurged e -> new ExecutionPurgedEvent();
            case ExecutionRestarted e -> new ExecutionRestartedEvent();
            case TaskRunCreated e -> new TaskRunCreatedEvent(e.taskRunId(), e.taskId(), e.parentTaskRunId(), e.value(),
                    e.iteration());
            case TaskRunAttemptStarted e -> new TaskRunAttemptStartedEvent(e.taskRunId(), e.attempt(), e.leaseUntil());
            case TaskRunLeaseExtended e -> new TaskRunLeaseExtendedEvent(e.taskRunId(), e.attempt(), e.leaseUntil());
            case TaskRunAttemptEnded e -> new TaskRunAttemptEndedEvent(e.taskRunId(), e.attempt(), ExecutionMapper.toRecord(e.state()), e.reason());
            case TaskRunCompleted e -> new TaskRunCompletedEvent(e.taskRunId(), ExecutionMapper.toRecord(e.state()),
                    Json.write(e.outputs()), e.error(), ExecutionMapper.toRecord(e.worker()));
            case TaskRunRetrying e -> new TaskRunRetryingEvent(e.taskRunId(), e.attempt(), e.error(), e.retryAt(),
                    ExecutionMapper.toRecord(e.worker()));
            case TaskRunReset e -> new TaskRunResetEvent(e.taskRunId());
            case TaskRunPaused e -> new TaskRunPausedEvent(e.taskRunId());
            case TaskRunResumed e -> new TaskRunResumedEvent(e.taskRunId(), Json.write(e.outputs()));
        };
    }

    private static Event event(String executionId, Object payload, Instant at) {
        return switch (payload) {
            case ExecutionCreatedEvent e -> new ExecutionCreated(executionId, e.getNamespace(), e.getFlowId(),
                    e.getFlowRevision(), Json.readMap(e.getInputsJson()), e.getLabels(),
                    ExecutionMapper.fromRecord(e.getTrigger()), ExecutionMapper.lineage(e.getOriginalId(), e.getAttempt()),
                    e.getRequestedAt(), at);
            case ExecutionStateChangedEvent e -> new ExecutionStateChanged(ExecutionMapper.fromRecord(e.getState()), at);
            case ExecutionCompletedEvent e -> new ExecutionCompleted(ExecutionMapper.fromRecord(e.getState()),
                    e.getOutputsJson() == null ? null : Json.readMap(e.getOutputsJson()), e.getError(), at);
            case ExecutionPurgedEvent e -> new ExecutionPurged(at);
            case ExecutionRestartedEvent e -> new ExecutionRestarted(at);
            case TaskRunCreatedEvent e -> new TaskRunCreated(e.getTaskRunId(), e.getTaskId(), e.getParentTaskRunId(), e.getValue(),
                    e.getIteration(), at);
            case TaskRunAttemptStartedEvent e -> new TaskRunAttemptStarted(e.getTaskRunId(), e.getAttempt(), e.getLeaseUntil(), at);
            case TaskRunLeaseExtendedEvent e -> new TaskRunLeaseExtended(e.getTaskRunId(), e.getAttempt(), e.getLeaseUntil(), at);
            case TaskRunAttemptEndedEvent e -> new TaskRunAttemptEnded(e.getTaskRunId(), e.getAttempt(),
                    ExecutionMapper.fromRecord(e.getState()), e.getReason(), at);
            case TaskRunCompletedEvent e -> new TaskRunCompleted(e.getTaskRunId(), ExecutionMapper.fromRecord(e.getState()),
                    Json.readMap(e.getOutputsJson()), e.getError(), ExecutionMapper.fromRecord(e.getWorker()), at);
            case TaskRunRetryingEvent e -> new TaskRunRetrying(e.getTaskRunId(), e.getAttempt(), e.getError(), e.getRetryAt(),
                    ExecutionMapper.fromRecord(e.getWorker()), at);
            case TaskRunResetEvent e -> new TaskRunReset(e.getTaskRunId(), at);
            case TaskRunPausedEvent e -> new TaskRunPaused(e.getTaskRunId(), at);
            case TaskRunResumedEvent e -> new TaskRunResumed(e.getTaskRunId(), Json.readMap(e.getOutputsJson()), at);
            default -> throw new IllegalArgumentException("Unknown event payload "
                    + payload.getClass().getSimpleName());
        };
    }
}
