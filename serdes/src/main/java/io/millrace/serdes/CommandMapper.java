package io.millrace.serdes;

import io.millrace.core.command.AcquireSlot;
import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.PauseExecution;
import io.millrace.core.command.ReleaseSlot;
import io.millrace.core.command.ReplaySeed;
import io.millrace.core.command.RestartExecution;
import io.millrace.core.command.ResumeExecution;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.command.SubflowEnded;
import io.millrace.core.command.TaskResult;
import io.millrace.core.flow.Concurrency;
import io.millrace.serdes.avro.AcquireSlotPayload;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.CreateExecutionPayload;
import io.millrace.serdes.avro.KillExecutionPayload;
import io.millrace.serdes.avro.PauseExecutionPayload;
import io.millrace.serdes.avro.ReleaseSlotPayload;
import io.millrace.serdes.avro.ReplaySeedRecord;
import io.millrace.serdes.avro.RestartExecutionPayload;
import io.millrace.serdes.avro.ResumeExecutionPayload;
import io.millrace.serdes.avro.SeedRunRecord;
import io.millrace.serdes.avro.SlotAnswerPayload;
import io.millrace.serdes.avro.SubflowEndedPayload;
import io.millrace.serdes.avro.TaskResultRecord;

/** Maps commands and worker results between domain records and their Avro form. */
public final class CommandMapper {
    private CommandMapper() {
    }

    public static CommandRecord toRecord(Command command) {
        Object payload = switch (command) {
            case CreateExecution c -> new CreateExecutionPayload(c.namespace(), c.flowId(), c.revision(),
                    Json.write(c.inputs()), c.labels(), c.requestedAt(), ExecutionMapper.toRecord(c.trigger()),
                    c.lineage().originalId(), c.lineage().attempt(), toRecord(c.replay()));
            case KillExecution k -> new KillExecutionPayload(k.requestedAt(), k.cascade());
            case PauseExecution p -> new PauseExecutionPayload(p.requestedAt());
            case ResumeExecution r -> new ResumeExecutionPayload(r.taskRunId(), Json.write(r.inputs()), r.requestedAt());
            case RestartExecution r -> new RestartExecutionPayload(r.requestedAt());
            case AcquireSlot a -> new AcquireSlotPayload(a.executionId(), a.limit(), a.behavior().name(), a.at());
            case ReleaseSlot r -> new ReleaseSlotPayload(r.executionId(), r.at());
            case SlotAnswer a -> new SlotAnswerPayload(a.flowKey(), a.answer().name(), a.reason(), a.at());
            case SubflowEnded e -> new SubflowEndedPayload(e.taskRunId(), e.attempt(), e.childExecutionId(),
                    ExecutionMapper.toRecord(e.state()), e.outputs() == null ? null : Json.write(e.outputs()), e.error(),
                    e.at());
            default -> throw new IllegalArgumentException("Expected a command for the commands topic, but got "
                    + command.getClass().getSimpleName());
        };
        return new CommandRecord(command.key(), payload);
    }

    public static Command fromRecord(CommandRecord record) {
        return switch (record.getPayload()) {
            case CreateExecutionPayload c -> new CreateExecution(record.getExecutionId(), c.getNamespace(),
                    c.getFlowId(), c.getRevision(), Json.readMap(c.getInputsJson()), c.getLabels(), c.getRequestedAt(),
                    ExecutionMapper.fromRecord(c.getTrigger()), ExecutionMapper.lineage(c.getOriginalId(), c.getAttempt()),
                    fromRecord(c.getReplay()));
            case KillExecutionPayload k -> new KillExecution(record.getExecutionId(), k.getRequestedAt(), k.getCascade());
            case PauseExecutionPayload p -> new PauseExecution(record.getExecutionId(), p.getRequestedAt());
            case ResumeExecutionPayload r -> new ResumeExecution(record.getExecutionId(), r.getTaskRunId(),
                    Json.readMap(r.getInputsJson()), r.getRequestedAt());
            case RestartExecutionPayload r -> new RestartExecution(record.getExecutionId(), r.getRequestedAt());
            case AcquireSlotPayload a -> new AcquireSlot(record.getExecutionId(), a.getExecutionId(), a.getLimit(),
                    Concurrency.Behavior.valueOf(a.getBehavior()), a.getAt());
            case ReleaseSlotPayload r -> new ReleaseSlot(record.getExecutionId(), r.getExecutionId(), r.getAt());
            case SlotAnswerPayload a -> new SlotAnswer(record.getExecutionId(), a.getFlowKey(),
                    SlotAnswer.Answer.valueOf(a.getAnswer()), a.getReason(), a.getAt());
            case SubflowEndedPayload e -> new SubflowEnded(record.getExecutionId(), e.getTaskRunId(), e.getAttempt(),
                    e.getChildExecutionId(), ExecutionMapper.fromRecord(e.getState()),
                    e.getOutputsJson() == null ? null : Json.readMap(e.getOutputsJson()), e.getError(), e.getAt());
            default -> throw new IllegalArgumentException("Unknown command payload " + record.getPayload());
        };
    }

    private static ReplaySeedRecord toRecord(ReplaySeed seed) {
        if (seed == null) {
            return null;
        }
        var runs = seed.runs().stream().map(r -> new SeedRunRecord(r.taskRunId(), r.taskId(), r.parentTaskRunId(),
                r.value(), r.iteration(), ExecutionMapper.toRecord(r.state()), Json.write(r.outputs()), r.error(),
                r.createdAt(), r.endedAt())).toList();
        return new ReplaySeedRecord(seed.fromExecutionId(), seed.fromTaskRunId(), runs);
    }

    private static ReplaySeed fromRecord(ReplaySeedRecord seed) {
        if (seed == null) {
            return null;
        }
        var runs = seed.getRuns().stream().map(r -> new ReplaySeed.SeedRun(r.getTaskRunId(), r.getTaskId(),
                r.getParentTaskRunId(), r.getValue(), r.getIteration(), ExecutionMapper.fromRecord(r.getState()),
                Json.readMap(r.getOutputsJson()), r.getError(), r.getCreatedAt(), r.getEndedAt())).toList();
        return new ReplaySeed(seed.getFromExecutionId(), seed.getFromTaskRunId(), runs);
    }

    public static TaskResultRecord toRecord(TaskResult r) {
        return new TaskResultRecord(r.executionId(), r.taskRunId(), r.attempt(), ExecutionMapper.toRecord(r.state()),
                Json.write(r.outputs()), r.error(), r.at(), r.workerId(), ExecutionMapper.toRecord(r.worker()));
    }

    public static TaskResult fromRecord(TaskResultRecord r) {
        return new TaskResult(r.getExecutionId(), r.getTaskRunId(), r.getAttempt(), ExecutionMapper.fromRecord(r.getState()),
                Json.readMap(r.getOutputsJson()), r.getError(), r.getWorkerId(), ExecutionMapper.fromRecord(r.getWorker()),
                r.getAt());
    }
}
