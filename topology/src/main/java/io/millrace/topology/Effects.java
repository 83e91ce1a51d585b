package io.millrace.topology;

import io.millrace.core.decide.Contexts;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Effect;
import io.millrace.core.event.Event;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.TaskTypes;
import io.millrace.core.flow.WorkerTask;
import io.millrace.serdes.EventMapper;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.core.execution.TaskRuns;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/** Carries out a decision: forwards its events, worker tasks and snapshot, and stores or deletes its timers. */
final class Effects {
    /** The most characters of properties and variables a dispatch carries: under Kafka's default 1 MB a record. */
    static final int MAX_DISPATCH_CHARS = 900_000;
    private static final int MAX_CACHED_TASKS = 10_000;
    private final ProcessorContext<String, Object> context;
    private final KeyValueStore<String, TimerRecord> timers;
    private final long leaseMillis;
    private final LongConsumer wakeBy;
    /** By identity: a flow revision's parsed tasks stay the same objects while the flow lookup keeps them. */
    private final Map<WorkerTask, String> propertiesJson = new IdentityHashMap<>();

    /** @param wakeBy told the due time (epoch millis) of every timer stored */
    Effects(ProcessorContext<String, Object> context, KeyValueStore<String, TimerRecord> timers, Duration lease,
            LongConsumer wakeBy) {
        this.context = context;
        this.timers = timers;
        this.leaseMillis = lease.toMillis();
        this.wakeBy = wakeBy;
    }

    /**
     * Builds every record and timer a decision produces, before anything is stored or sent, so a
     * failure while building leaves the stores and topics untouched.
     */
    Outbox prepare(String executionId, Decision decision, StoreBackedState state, Flow flow, Instant now) {
        return prepare(executionId, decision, state, flow, now, false);
    }

    /** @param allRuns the snapshot sends every task run, not only those the decision changed (to send again) */
    Outbox prepare(String executionId, Decision decision, StoreBackedState state, Flow flow, Instant now, boolean allRuns) {
        long timestamp = now.toEpochMilli();
        var outbox = new Outbox();
        for (Event event : decision.events()) {
            outbox.records.add(new Outgoing(Names.EVENTS_SINK,
                    new Record<>(executionId, EventMapper.toRecord(executionId, event), timestamp)));
        }
        for (Effect effect : decision.effects()) {
            switch (effect) {
                case Effect.DispatchTask dispatch -> outbox.records.add(dispatch(dispatch, state, flow, now));
                case Effect.ScheduleTimer schedule -> outbox.timers.put(TimerKeys.of(schedule.timer()),
                        ExecutionMapper.toRecord(schedule.timer()));
                case Effect.CancelTimer cancel -> outbox.timers.put(TimerKeys.of(cancel.timer()), null);
                case Effect.EmitSnapshot ignored -> snapshot(executionId, state, now, allRuns).forEach(r ->
                        outbox.records.add(new Outgoing(Names.SNAPSHOTS_SINK, r)));
            }
        }
        return outbox;
    }

    /** What one decision sends and stores; {@link #send()} once the state is stored. */
    final class Outbox {
        private final List<Outgoing> records = new ArrayList<>();
        /** By timer key, in effect order: a later effect on the same key wins; null deletes (a cancel). */
        private final Map<String, TimerRecord> timers = new LinkedHashMap<>();

        void send() {
            timers.forEach((key, timer) -> {
                Effects.this.timers.put(key, timer); // null deletes, without reading the old value first
                if (timer != null) {
                    wakeBy.accept(timer.getDueAt().toEpochMilli());
                }
            });
            records.forEach(r -> context.forward(r.record(), r.sink()));
        }
    }

    private record Outgoing(String sink, Record<String, Object> record) {
    }

    /**
     * The attempt for the workers; or, when its properties and variables are over {@link #MAX_DISPATCH_CHARS} (a task
     * that reads the outputs of every iteration of a big loop), its FAILED result, naming the limit, on the results
     * topic: the executor reads it like a worker's, so the run fails (or retries) instead of the dispatch being
     * refused by Kafka and lost.
     */
    private Outgoing dispatch(Effect.DispatchTask dispatch, StoreBackedState state, Flow flow, Instant now) {
        WorkerTaskRecord task = workerTask(dispatch, state, flow, now);
        int size = task.getPropertiesJson().length() + task.getVariablesJson().length();
        if (size <= MAX_DISPATCH_CHARS) {
            return new Outgoing(Names.TASKS_SINK, new Record<>(dispatch.executionId(), task, now.toEpochMilli()));
        }
        String error = "Task '" + dispatch.task().id() + "': its properties and variables take " + size
                + " characters, more than the " + MAX_DISPATCH_CHARS + " a task may carry to a worker; read fewer outputs";
        var result = new TaskResultRecord(dispatch.executionId(), dispatch.taskRunId(), dispatch.attempt(),
                StateValue.FAILED, "{}", error, now, null);
        return new Outgoing(Names.RESULTS_SINK, new Record<>(dispatch.executionId(), result, now.toEpochMilli()));
    }

    private WorkerTaskRecord workerTask(Effect.DispatchTask dispatch, StoreBackedState state, Flow flow, Instant now) {
        Execution execution = state.execution().orElseThrow();
        TaskRun run = execution.taskRun(dispatch.taskRunId()).orElseThrow();
        Map<String, Object> variables = Contexts.dispatch(execution, state, flow, run, dispatch.task());
        return WorkerTaskRecord.newBuilder()
                .setExecutionId(dispatch.executionId())
                .setTaskRunId(dispatch.taskRunId())
                .setAttempt(dispatch.attempt())
                .setTaskId(dispatch.task().id())
                .setTaskType(dispatch.task().type())
                .setWorkerGroup(dispatch.task().workerGroup())
                .setPropertiesJson(propertiesJson(dispatch.task()))
                .setVariablesJson(Json.write(variables))
                .setLeaseMillis(leaseMillis)
                .setDispatchedAt(now)
                .build();
    }

    /**
     * A task's properties are the same for every dispatch of its flow revision: written once. Its {@code timeout}
     * and {@code logLevel} travel with them, since the worker applies them.
     */
    private String propertiesJson(WorkerTask task) {
        String json = propertiesJson.get(task);
        if (json == null) {
            if (propertiesJson.size() >= MAX_CACHED_TASKS) {
                propertiesJson.clear();
            }
            Map<String, Object> properties = task.properties();
            if (task.options().timeout() != null || task.options().logLevel() != null) {
                properties = new LinkedHashMap<>(properties);
                if (task.options().timeout() != null) {
                    properties.put(TaskTypes.TIMEOUT, task.options().timeout().toString());
                }
                if (task.options().logLevel() != null) {
                    properties.put(TaskTypes.LOG_LEVEL, task.options().logLevel());
                }
            }
            json = Json.write(properties);
            propertiesJson.put(task, json);
        }
        return json;
    }

    /**
     * The execution's latest state: a small execution's, with its task runs and their outputs inline; a bigger one's
     * as one record per task run that changed (with its outputs), then the execution itself, which says how many runs
     * it has. Once it is purged, a tombstone for each of them.
     */
    private static List<Record<String, Object>> snapshot(String executionId, StoreBackedState state, Instant now,
            boolean allRuns) {
        long timestamp = now.toEpochMilli();
        var records = new ArrayList<Record<String, Object>>();
        Execution execution = state.execution().orElse(null);
        if (execution == null) {
            int removed = state.removedRuns().size();
            for (int seq = 0; removed > StoreBackedState.INLINE_RUNS && seq < removed; seq++) {
                records.add(new Record<>(SnapshotKeys.run(executionId, seq), null, timestamp));
            }
            records.add(new Record<>(executionId, null, timestamp));
            return records;
        }
        TaskRuns runs = execution.runs();
        if (runs.size() <= StoreBackedState.INLINE_RUNS) {
            var outputs = new HashMap<String, String>();
            for (TaskRun run : runs.list()) {
                String json = state.outputsJson(run.id());
                if (json != null) {
                    outputs.put(run.id(), json);
                }
            }
            records.add(new Record<>(executionId, new ExecutionSnapshot(state.executionRecord(execution), outputs, now,
                    null), timestamp));
            return records;
        }
        for (TaskRun run : StoreBackedState.runsToSend(runs, allRuns)) {
            int seq = runs.position(run.id());
            records.add(new Record<>(SnapshotKeys.run(executionId, seq), new TaskRunSnapshot(executionId, seq,
                    ExecutionMapper.toRecord(run), state.outputsJson(run.id()), now), timestamp));
        }
        records.add(new Record<>(executionId, new ExecutionSnapshot(state.executionRecord(execution), Map.of(),
                now, runs.size()), timestamp));
        return records;
    }

    void deadLetter(String key, String reason, SpecificRecord original, Instant now) {
        RecordMetadata source = context.recordMetadata().orElse(null);
        var letter = DeadLetters.of(source == null ? null : source.topic(), source == null ? -1 : source.partition(),
                source == null ? -1 : source.offset(), key, reason, original == null ? null : encode(original));
        context.forward(new Record<>(key, letter, now.toEpochMilli()), Names.DEAD_LETTERS_SINK);
    }

    /** The original command in its own single-object encoding, so an operator can replay it as it was. */
    private static byte[] encode(SpecificRecord original) {
        try {
            ByteBuffer buffer = new BinaryMessageEncoder<SpecificRecord>(SpecificData.get(), original.getSchema()).encode(original);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException | RuntimeException e) {
            return original.toString().getBytes(StandardCharsets.UTF_8);
        }
    }
}
