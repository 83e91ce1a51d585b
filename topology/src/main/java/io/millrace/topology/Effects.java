package io.millrace.topology;

import com.fasterxml.jackson.databind.util.RawValue;
import io.millrace.config.ExecutorLimits;
import io.millrace.core.command.KillExecution;
import io.millrace.core.decide.Contexts;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Effect;
import io.millrace.core.event.Event;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.TaskTypes;
import io.millrace.core.flow.WorkerTask;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.EventMapper;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Json;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.avro.StateValue;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.core.execution.TaskRuns;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Carries out a decision: forwards its worker tasks and commands, its snapshot and its events, in that order, and
 * stores or deletes its timers. Every record is encoded here, before anything of the decision is stored or sent, and
 * checked against the {@link ExecutorLimits}: Kafka refuses a record over its topic's limit, and under exactly-once one
 * refused record aborts the whole transaction, so the same command would be decided, and refused, again for ever. A
 * decision over a limit throws {@link RecordLimitException} instead, which fails that execution; the failure's own
 * snapshot is slimmed to fit ({@link Sending#FAILURE}).
 */
final class Effects {
    private static final int MAX_CACHED_TASKS = 10_000;
    private final ProcessorContext<String, Object> context;
    private final KeyValueStore<String, TimerRecord> timers;
    private final long leaseMillis;
    private final ExecutorLimits limits;
    private final LongConsumer wakeBy;
    /** By identity: a flow revision's parsed tasks stay the same objects while the flow lookup keeps them. */
    private final Map<WorkerTask, String> propertiesJson = new IdentityHashMap<>();

    /** What a decision's records are sent for. */
    enum Sending {
        /** A step: what the decision changed; over a limit, the decision fails. */
        STEP,
        /** A step sent again: every task run of the snapshot, not only those the decision changed. */
        AGAIN,
        /** The decision that fails an execution: a snapshot over the limit is slimmed until it fits. */
        FAILURE
    }

    /** @param wakeBy told the due time (epoch millis) of every timer stored */
    Effects(ProcessorContext<String, Object> context, KeyValueStore<String, TimerRecord> timers, Duration lease,
            ExecutorLimits limits, LongConsumer wakeBy) {
        this.context = context;
        this.timers = timers;
        this.leaseMillis = lease.toMillis();
        this.limits = limits;
        this.wakeBy = wakeBy;
    }

    Outbox prepare(String executionId, Decision decision, StoreBackedState state, Flow flow, Instant now) {
        return prepare(executionId, decision, state, flow, now, Sending.STEP);
    }

    /**
     * Builds and encodes every record and timer a decision produces, before anything is stored or sent, so a
     * failure while building, or a record over a limit, leaves the stores and topics untouched.
     *
     * @throws RecordLimitException when a record, or all of them together, would be over the limits
     */
    Outbox prepare(String executionId, Decision decision, StoreBackedState state, Flow flow, Instant now,
            Sending sending) {
        long timestamp = now.toEpochMilli();
        var outbox = new Outbox();
        Map<Effect.DispatchTask, Map<String, Object>> variables = dispatchVariables(decision, state, flow);
        if (!decision.events().isEmpty()) {
            events(outbox, executionId, decision.events(), timestamp);
        }
        for (Effect effect : decision.effects()) {
            switch (effect) {
                case Effect.DispatchTask dispatch -> dispatch(outbox, dispatch, variables.get(dispatch), state, now);
                case Effect.ScheduleTimer schedule -> outbox.timers.put(TimerKeys.of(schedule.timer()),
                        ExecutionMapper.toRecord(schedule.timer()));
                case Effect.CancelTimer cancel -> outbox.timers.put(TimerKeys.of(cancel.timer()), null);
                case Effect.EmitSnapshot ignored -> snapshot(outbox, executionId, state, now, sending);
                case Effect.StopTasks stop -> {
                    var record = CommandMapper.toRecord(new KillExecution(stop.executionId(), stop.requestedAt()));
                    outbox.add(Names.KILLS_SINK, stop.executionId(), record, Topics.COMMAND_SERDE.encode(record),
                            timestamp);
                }
                case Effect.SendCommand send -> {
                    var record = CommandMapper.toRecord(send.command());
                    outbox.add(Names.COMMANDS_SINK, send.command().key(), record, fitting(
                            Topics.COMMAND_SERDE.encode(record), "The command ", send.command().getClass().getSimpleName()),
                            timestamp);
                }
            }
        }
        return outbox;
    }

    /** What one decision sends and stores; {@link #send()} once the state is stored. */
    final class Outbox {
        private final List<Outgoing> records = new ArrayList<>();
        /**
         * Sent after {@link #records}: under exactly-once a producer keeps one request in flight, so what goes first
         * may go alone, the rest then waiting for its answer; the tasks and commands a worker or the executor waits
         * for, and the snapshot readers wait for, go ahead of the events, which nothing in the engine reads.
         */
        private final List<Outgoing> events = new ArrayList<>();
        /** By timer key, in effect order: a later effect on the same key wins; null deletes (a cancel). */
        private final Map<String, TimerRecord> timers = new LinkedHashMap<>();
        private long bytes;

        /** @param encoded null for a tombstone */
        private void add(String sink, String key, SpecificRecord record, byte[] encoded, long timestamp) {
            if (encoded != null) {
                bytes += encoded.length;
                if (bytes > limits.maxDecisionBytes()) {
                    throw new RecordLimitException("The records of one step would take more than " + limits.maxDecisionBytes()
                            + " bytes, the max-decision-bytes limit");
                }
            }
            var outgoing = new Outgoing(sink, new Record<>(key, encoded == null ? null : new Encoded(record, encoded),
                    timestamp));
            (sink.equals(Names.EVENTS_SINK) ? events : records).add(outgoing);
        }

        void send() {
            timers.forEach((key, timer) -> {
                Effects.this.timers.put(key, timer); // null deletes, without reading the old value first
                if (timer != null) {
                    wakeBy.accept(timer.getDueAt().toEpochMilli());
                }
            });
            records.forEach(this::forward);
            events.forEach(this::forward);
        }

        private void forward(Outgoing outgoing) {
            context.forward(outgoing.record(), outgoing.sink());
        }
    }

    private record Outgoing(String sink, Record<String, Object> record) {
    }

    /**
     * The step's events in one record; when that is over {@code max-record-bytes} (a loop that creates many runs in
     * one step), halved until each part fits, in order. One event over the limit fails the step, naming it.
     */
    private void events(Outbox outbox, String executionId, List<Event> events, long timestamp) {
        var record = EventMapper.toRecord(executionId, events);
        byte[] encoded = Topics.EVENT_SERDE.encode(record);
        if (fits(encoded) || events.size() == 1) {
            outbox.add(Names.EVENTS_SINK, executionId, record,
                    fitting(encoded, "The execution's event ", events.getFirst().getClass().getSimpleName()), timestamp);
        } else {
            int half = events.size() / 2;
            events(outbox, executionId, events.subList(0, half), timestamp);
            events(outbox, executionId, events.subList(half, events.size()), timestamp);
        }
    }

    /**
     * The encoded record when it fits {@code max-record-bytes}; else a {@link RecordLimitException} naming it, as
     * {@code what + which} (two parts, so that nothing is concatenated while records fit).
     */
    private byte[] fitting(byte[] encoded, String what, String which) {
        if (!fits(encoded)) {
            throw new RecordLimitException(tooLarge(what + which, encoded.length));
        }
        return encoded;
    }

    private boolean fits(byte[] encoded) {
        return encoded.length <= limits.maxRecordBytes();
    }

    private String tooLarge(String what, int bytes) {
        return what + " would take " + bytes + " bytes, more than the " + limits.maxRecordBytes()
                + " a record may (max-record-bytes)";
    }

    /**
     * The attempt for the workers; or, when it is over {@code max-record-bytes} (a task that reads the outputs of every
     * iteration of a big loop), its FAILED result, naming the limit, on the results topic: the executor reads it like
     * a worker's, so the run fails (or retries) instead of the dispatch being refused by Kafka.
     */
    private void dispatch(Outbox outbox, Effect.DispatchTask dispatch, Map<String, Object> variables,
            StoreBackedState state, Instant now) {
        WorkerTaskRecord task = workerTask(dispatch, variables, state, now);
        byte[] encoded = Topics.TASK_SERDE.encode(task);
        if (fits(encoded)) {
            outbox.add(Names.TASKS_SINK, dispatch.executionId(), task, encoded, now.toEpochMilli());
            return;
        }
        String error = "Task '" + dispatch.task().id() + "': " + tooLarge("its dispatch, with the properties and "
                + "outputs it reads,", encoded.length) + "; read fewer outputs";
        var result = new TaskResultRecord(dispatch.executionId(), dispatch.taskRunId(), dispatch.attempt(),
                StateValue.FAILED, "{}", error, now, null, null);
        outbox.add(Names.RESULTS_SINK, dispatch.executionId(), result, Topics.RESULT_SERDE.encode(result),
                now.toEpochMilli());
    }

    /**
     * The variables of each dispatch of the decision, built once. Before any is encoded, the outputs they carry are
     * measured as the store keeps them (a lower bound of what their records take): a step whose lanes cannot fit
     * {@code max-decision-bytes} together fails now, instead of after encoding megabytes of them. A dispatch whose
     * outputs alone are over {@code max-record-bytes} is not counted: it is sent as a small failed result instead.
     */
    private Map<Effect.DispatchTask, Map<String, Object>> dispatchVariables(Decision decision, StoreBackedState state,
            Flow flow) {
        var variables = new IdentityHashMap<Effect.DispatchTask, Map<String, Object>>();
        long carried = 0;
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.DispatchTask dispatch) {
                Execution execution = state.execution().orElseThrow();
                TaskRun run = execution.taskRun(dispatch.taskRunId()).orElseThrow();
                Map<String, Object> vars = Contexts.dispatch(execution, state, flow, run, dispatch.task());
                variables.put(dispatch, vars);
                long chars = storedChars(vars.get("outputs"), state) + storedChars(vars.get("parents"), state);
                carried += chars <= limits.maxRecordBytes() ? chars : 0;
            }
        }
        if (carried > limits.maxDecisionBytes()) {
            throw new RecordLimitException("The outputs the dispatches of one step carry would take more than "
                    + limits.maxDecisionBytes() + " bytes, the max-decision-bytes limit (" + carried + " or more)");
        }
        return variables;
    }

    /** The characters of the stored outputs handed out in {@code value}, as {@link #stored} would write them. */
    private static long storedChars(Object value, StoreBackedState state) {
        String json = state.outputsJsonOf(value);
        if (json != null) {
            return json.length();
        }
        long chars = 0;
        if (value instanceof Map<?, ?> map) {
            for (Object child : map.values()) {
                chars += storedChars(child, state);
            }
        } else if (value instanceof List<?> list) {
            for (Object child : list) {
                chars += storedChars(child, state);
            }
        }
        return chars;
    }

    private WorkerTaskRecord workerTask(Effect.DispatchTask dispatch, Map<String, Object> variables,
            StoreBackedState state, Instant now) {
        return WorkerTaskRecord.newBuilder()
                .setExecutionId(dispatch.executionId())
                .setTaskRunId(dispatch.taskRunId())
                .setAttempt(dispatch.attempt())
                .setTaskId(dispatch.task().id())
                .setTaskType(dispatch.task().type())
                .setWorkerGroup(dispatch.task().workerGroup())
                .setPropertiesJson(propertiesJson(dispatch.task()))
                .setVariablesJson(Json.write(withStoredOutputs(variables, state)))
                .setLeaseMillis(leaseMillis)
                .setDispatchedAt(now)
                .build();
    }

    /**
     * The variables with each task run's outputs (under {@code outputs} and {@code parents}) as the JSON the store
     * keeps, written as it is: the lanes of a ForEach that read one big output would otherwise each write it again.
     */
    static Map<String, Object> withStoredOutputs(Map<String, Object> variables, StoreBackedState state) {
        var inlined = new LinkedHashMap<>(variables);
        inlined.computeIfPresent("outputs", (key, outputs) -> stored(outputs, state));
        inlined.computeIfPresent("parents", (key, parents) -> stored(parents, state));
        return inlined;
    }

    /** The outputs handed out in {@code value}, as their stored JSON; the maps and lists above them copied. */
    private static Object stored(Object value, StoreBackedState state) {
        String json = state.outputsJsonOf(value);
        if (json != null) {
            return new RawValue(json);
        }
        if (value instanceof Map<?, ?> map) {
            var copy = new LinkedHashMap<Object, Object>(map.size() * 2);
            map.forEach((key, child) -> copy.put(key, stored(child, state)));
            return copy;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(child -> stored(child, state)).toList();
        }
        return value;
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
    private void snapshot(Outbox outbox, String executionId, StoreBackedState state, Instant now, Sending sending) {
        long timestamp = now.toEpochMilli();
        Execution execution = state.execution().orElse(null);
        if (execution == null) {
            int removed = state.removedRuns().size();
            for (int seq = 0; removed > StoreBackedState.INLINE_RUNS && seq < removed; seq++) {
                outbox.add(Names.SNAPSHOTS_SINK, SnapshotKeys.run(executionId, seq), null, null, timestamp);
            }
            outbox.add(Names.SNAPSHOTS_SINK, executionId, null, null, timestamp);
            return;
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
            send(outbox, executionId, new ExecutionSnapshot(state.executionRecord(execution), outputs, now, null),
                    state.executionBody(execution), sending, timestamp);
            return;
        }
        for (TaskRun run : StoreBackedState.runsToSend(runs, sending == Sending.AGAIN)) {
            int seq = runs.position(run.id());
            var snapshot = new TaskRunSnapshot(executionId, seq, ExecutionMapper.toRecord(run), state.outputsJson(run.id()), now);
            byte[] encoded = Topics.RUN_SNAPSHOT_SERDE.encode(snapshot);
            if (!fits(encoded) && sending == Sending.FAILURE) {
                snapshot = Slim.runSnapshot(snapshot, limits);
                encoded = Topics.RUN_SNAPSHOT_SERDE.encode(snapshot);
            }
            outbox.add(Names.SNAPSHOTS_SINK, SnapshotKeys.run(executionId, seq), snapshot,
                    fitting(encoded, "The snapshot of its task run ", run.taskId()), timestamp);
        }
        send(outbox, executionId, new ExecutionSnapshot(state.executionRecord(execution), Map.of(), now, runs.size()),
                state.executionBody(execution), sending, timestamp);
    }

    /** @param executionBody the Avro body of the snapshot's execution record, which the store's record reuses */
    private void send(Outbox outbox, String executionId, ExecutionSnapshot snapshot, byte[] executionBody,
            Sending sending, long timestamp) {
        byte[] encoded = Topics.SNAPSHOT_SERDE.encode(snapshot, snapshot.getExecution(), executionBody);
        if (!fits(encoded) && sending == Sending.FAILURE) {
            snapshot = Slim.snapshot(snapshot, limits);
            encoded = Topics.SNAPSHOT_SERDE.encode(snapshot);
        }
        outbox.add(Names.SNAPSHOTS_SINK, executionId, snapshot, fitting(encoded, "The execution's snapshot",
                " (its inputs, outputs, errors and those of its task runs)"), timestamp);
    }
}
