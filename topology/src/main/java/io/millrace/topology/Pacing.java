package io.millrace.topology;

import io.millrace.core.command.Command;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.StartedOffsets;
import io.millrace.core.flow.TaskTypes;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.CreateExecutionPayload;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Paces one stream task's starts ({@code max-running-executions}): a create read while the task runs as many
 * executions as it may, or while creates read before it wait, waits too, in {@link Admissions}, in the order read;
 * waiting creates start, oldest first, as executions end. Results, kills and timers never wait: they end executions.
 * Past its ceiling the executor so finishes what it started at its own pace, instead of starting every create it
 * reads while the results that would end the running ones wait behind them (and their leases run out).
 *
 * <p>What waits stays visible: in {@code millrace_executor_creates_waiting} and in the {@link StartedOffsets started
 * offsets}, which the gateway's admission and the triggers' pace count as backlog.
 */
final class Pacing {
    /** Bounds the waiting creates one record or punctuation starts; the rest start at the next punctuation. */
    static final int MAX_ADMISSIONS_PER_CALL = 500;

    private final Admissions admissions;
    private final RunningExecutions running;
    private final PaceGauges.Counts counts;
    private final StartedOffsets started;
    private final int partition;
    private final String commandsTopic;
    private final Wakeup wakeup;
    private final CountedDeadLetters deadLetters;
    private final BiConsumer<Command, SpecificRecord> handler;

    /**
     * Counts what waits in the store (once, when the task starts or revives: the store may have been rolled back).
     *
     * @param handler handles a create whose turn came, as the processor handles a command
     */
    Pacing(Admissions admissions, RunningExecutions running, PaceGauges.Counts counts, StartedOffsets started,
            int partition, String commandsTopic, Wakeup wakeup, CountedDeadLetters deadLetters,
            BiConsumer<Command, SpecificRecord> handler) {
        this.admissions = admissions;
        this.running = running;
        this.counts = counts;
        this.started = started;
        this.partition = partition;
        this.commandsTopic = commandsTopic;
        this.wakeup = wakeup;
        this.deadLetters = deadLetters;
        this.handler = handler;
        count();
    }

    /** Asks for a wake-up now when creates were left waiting before a restart. */
    void wakeIfAnyWaits(long nowMillis) {
        if (!admissions.isEmpty()) {
            wakeup.by(nowMillis);
        }
    }

    /**
     * Parks a record read when it is a create that must wait; a record without an offset never waits (in tests only).
     *
     * @return whether the record waits (and is handled when its turn comes)
     */
    boolean parks(SpecificRecord value, RecordMetadata source) {
        if (!(value instanceof CommandRecord create && create.getPayload() instanceof CreateExecutionPayload payload)
                || !running.bounded() || admissions.isEmpty() && running.free() > 0 || source == null
                || startedBySubflow(payload)) {
            return false;
        }
        admissions.park(source.offset(), create); // a duplicate waits too, and is found one when it starts
        count();
        return true;
    }

    /**
     * A subflow's child is work its parent, running already, waits for: it never waits for a place, or parents holding
     * every place would wait for children that wait for them.
     */
    private static boolean startedBySubflow(CreateExecutionPayload create) {
        return create.getTrigger() != null && TaskTypes.SUBFLOWS.contains(create.getTrigger().getType());
    }

    /** What a command left its execution as: running, or not (ended, purged, never created, failed to handle). */
    void seen(String executionId, boolean isRunning) {
        running.seen(executionId, isRunning);
    }

    /**
     * A kill, read at {@code offset}, of an execution that does not exist: while creates wait, one of them may be its
     * create, which must then never start (see {@link Admissions}).
     */
    void killedBeforeStart(String executionId, long offset) {
        if (!admissions.isEmpty()) {
            admissions.killed(executionId, offset);
        }
    }

    /** Starts waiting creates, oldest first, while the bound lets them; a punctuation goes on where this stops. */
    void admit(long nowMillis) {
        int admitted = 0;
        while (!admissions.isEmpty() && running.free() > 0 && admitted < MAX_ADMISSIONS_PER_CALL) {
            List<Admissions.Waiting> next = admissions.take(Math.min(running.free(), MAX_ADMISSIONS_PER_CALL - admitted));
            next.forEach(this::admit);
            admissions.done(next);
            admitted += next.size();
        }
        if (!admissions.isEmpty() && running.free() > 0) {
            wakeup.by(nowMillis);
        }
        count();
    }

    /** Handles a create whose turn came, unless a kill read after it asked that it never start. */
    private void admit(Admissions.Waiting waiting) {
        deadLetters.readFrom(new Origin(commandsTopic, partition, waiting.offset()), () -> {
            CommandRecord create;
            Command command;
            try {
                create = waiting.create();
                command = CommandMapper.fromRecord(create);
            } catch (RuntimeException e) {
                deadLetters.send(waiting.executionId(), "Unreadable waiting create: " + e.getMessage(), null,
                        DeadLetterMeters.Reason.UNREADABLE);
                return;
            }
            if (waiting.killed()) {
                deadLetters.send(waiting.executionId(), "Killed while waiting to start (max-running-executions): the"
                        + " execution never started", create, DeadLetterMeters.Reason.KILLED_WAITING_TO_START);
                return;
            }
            handler.accept(command, create);
        });
    }

    /** Sets the gauges and the started offset of this partition. */
    private void count() {
        counts.set(admissions.size(), running.size());
        started.set(partition, admissions.oldestOffset());
    }
}
