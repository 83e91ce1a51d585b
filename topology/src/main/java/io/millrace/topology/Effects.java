package io.millrace.topology;

import io.millrace.core.decide.Contexts;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Effect;
import io.millrace.core.decide.ExecutionView;
import io.millrace.core.event.Event;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flow;
import io.millrace.serdes.EventMapper;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/** Carries out a decision: forwards its events, worker tasks and snapshot, and stores its timers. */
final class Effects {
    private final ProcessorContext<String, Object> context;
    private final KeyValueStore<String, TimerRecord> timers;
    private final long leaseMillis;

    Effects(ProcessorContext<String, Object> context, KeyValueStore<String, TimerRecord> timers, Duration lease) {
        this.context = context;
        this.timers = timers;
        this.leaseMillis = lease.toMillis();
    }

    void carryOut(String executionId, Decision decision, ExecutionView state, Flow flow, Instant now) {
        long timestamp = now.toEpochMilli();
        for (Event event : decision.events()) {
            context.forward(new Record<>(executionId, EventMapper.toRecord(executionId, event), timestamp), Names.EVENTS_SINK);
        }
        for (Effect effect : decision.effects()) {
            switch (effect) {
                case Effect.DispatchTask dispatch -> context.forward(
                        new Record<>(executionId, workerTask(dispatch, state, flow, now), timestamp), Names.TASKS_SINK);
                case Effect.ScheduleTimer schedule ->
                        timers.put(TimerKeys.of(schedule.timer()), ExecutionMapper.toRecord(schedule.timer()));
                case Effect.EmitSnapshot ignored -> context.forward(
                        new Record<>(executionId, snapshot(state, now), timestamp), Names.SNAPSHOTS_SINK);
            }
        }
    }

    private WorkerTaskRecord workerTask(Effect.DispatchTask dispatch, ExecutionView state, Flow flow, Instant now) {
        Execution execution = state.execution().orElseThrow();
        TaskRun run = execution.taskRun(dispatch.taskRunId()).orElseThrow();
        Map<String, Object> variables = Contexts.builder(execution, state, flow)
                .task(dispatch.task().id(), dispatch.task().type())
                .taskRun(run.id(), run.histories().getFirst().date(), dispatch.attempt())
                .build();
        return WorkerTaskRecord.newBuilder()
                .setExecutionId(dispatch.executionId())
                .setTaskRunId(dispatch.taskRunId())
                .setAttempt(dispatch.attempt())
                .setTaskId(dispatch.task().id())
                .setTaskType(dispatch.task().type())
                .setWorkerGroup(dispatch.task().workerGroup())
                .setPropertiesJson(Json.write(dispatch.task().properties()))
                .setVariablesJson(Json.write(variables))
                .setLeaseMillis(leaseMillis)
                .setDispatchedAt(now)
                .build();
    }

    private static ExecutionSnapshot snapshot(ExecutionView state, Instant now) {
        Execution execution = state.execution().orElseThrow();
        var outputs = new HashMap<String, String>();
        for (TaskRun run : execution.taskRuns()) {
            Map<String, Object> values = state.outputs(run.id());
            if (!values.isEmpty()) {
                outputs.put(run.id(), Json.write(values));
            }
        }
        return new ExecutionSnapshot(ExecutionMapper.toRecord(execution), outputs, now);
    }

    void deadLetter(String key, String reason, SpecificRecord original, Instant now) {
        RecordMetadata source = context.recordMetadata().orElse(null);
        var record = DeadLetterRecord.newBuilder()
                .setComponent("executor")
                .setTopic(source == null ? null : source.topic())
                .setPartition(source == null ? -1 : source.partition())
                .setOffset(source == null ? -1 : source.offset())
                .setKey(key)
                .setReason(reason)
                .setPayload(original == null ? null : ByteBuffer.wrap(original.toString().getBytes(StandardCharsets.UTF_8)))
                .setAt(now)
                .build();
        context.forward(new Record<>(key, record, now.toEpochMilli()), Names.DEAD_LETTERS_SINK);
    }
}
