package io.millrace.topology;

import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.ExecutorLimits;
import io.millrace.core.cache.LruCache;
import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Rejection;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.flow.Flow;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.TimerRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapts the decider to Kafka Streams: loads an execution's state from the stores, decides, stores
 * the outcome and forwards events, snapshots and worker tasks. Timers come due through a wall-clock
 * punctuator. A failure while handling one record fails that execution and dead-letters the record;
 * it never stops the stream thread.
 */
final class ExecutorProcessor implements Processor<String, SpecificRecord, String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorProcessor.class);
    /** Bounds the work of one punctuation (and one transaction) after a long stop; the rest waits for the next. */
    static final int MAX_TIMERS_PER_PUNCTUATION = 500;
    /** Executions kept decoded in memory per stream task (and executions re-sent since it started). */
    static final int MAX_CACHED_EXECUTIONS = 2_000;
    /** The longest a fresh start lets leases that ran out wait for the results already on their way. */
    static final Duration MAX_LEASE_GRACE = Duration.ofSeconds(10);

    private final Decider decider;
    private final ExecutorSettings settings;
    private final ExecutorMetrics metrics;
    private final EagerCommits eagerCommits;
    private ProcessorContext<String, Object> context;
    private StoreBackedState.Stores stores;
    private KeyValueStore<String, TimerRecord> timers;
    private KeyValueStore<String, CommandRecord> deferred;
    private FlowLookup flows;
    /** The commands whose step was sent again, as a duplicate, since this processor started (by replay key). */
    private LruCache<String, Boolean> reemitted;
    private Effects effects;
    private Wakeup wakeup;
    /**
     * Every timer due before this (epoch millis) has fired or was cancelled, and was deleted. Scans start here:
     * RocksDB keeps a deleted key as a tombstone until compaction, and timer keys sort by due time, so a scan from the
     * first key would step over every timer deleted since the last compaction, thousands of them under load.
     */
    private long firedBefore;
    /** Until when (epoch millis) leases that ran out are not judged yet: a while after a fresh start. */
    private long leaseGraceUntil;
    /** When the record being handled was produced (epoch millis); {@link Long#MIN_VALUE} for a timer's command. */
    private long inputTimestamp = Long.MIN_VALUE;

    /** @param eagerCommits shared by the processors of all the instance's stream tasks */
    ExecutorProcessor(Decider decider, ExecutorSettings settings, EagerCommits eagerCommits, MeterRegistry registry) {
        this.decider = decider;
        this.settings = settings;
        this.eagerCommits = eagerCommits;
        this.metrics = new ExecutorMetrics(registry, settings.topicPrefix());
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        // a new cache whenever the stores may have been rolled back to the last commit (see below)
        this.stores = new StoreBackedState.Stores(context.getStateStore(Names.EXECUTIONS_STORE),
                context.getStateStore(Names.TASK_RUNS_STORE), context.getStateStore(Names.OUTPUTS_STORE),
                new LruCache<>(MAX_CACHED_EXECUTIONS));
        this.reemitted = new LruCache<>(MAX_CACHED_EXECUTIONS);
        decider.forgetPlans();
        this.timers = context.getStateStore(Names.TIMERS_STORE);
        this.deferred = context.getStateStore(Names.DEFERRED_STORE);
        KeyValueStore<String, FlowRecord> flowStore = context.getStateStore(Names.FLOWS_STORE);
        this.flows = new FlowLookup(flowStore);
        // Kafka Streams initializes the same processor again when it revives a task after an aborted transaction: its
        // punctuation schedules survive (cancel ours, or it would run every interval for good), and its stores are
        // back at the last commit (the timers fired since then are back and must fire again).
        if (wakeup != null) {
            wakeup.cancel();
        } else {
            // a fresh start (after a stop or a crash): results that came while the executor was down are still to be
            // read; a lease that ran out meanwhile is judged only once they had a chance to end its attempt
            leaseGraceUntil = context.currentSystemTimeMs() + leaseGrace(settings.lease()).toMillis();
        }
        this.firedBefore = 0;
        this.wakeup = new Wakeup(context, settings.timerInterval(), this::punctuate);
        this.effects = new Effects(context, timers, settings.lease(), settings.limits(), this::timerStored);
        wakeForNextTimer();
        try (KeyValueIterator<String, CommandRecord> waiting = deferred.all()) {
            if (waiting.hasNext()) {
                wakeup.by(context.currentSystemTimeMs()); // creates left waiting for their flow before a restart
            }
        }
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        inputTimestamp = record.timestamp();
        Command command;
        try {
            command = switch (record.value()) {
                case CommandRecord c -> CommandMapper.fromRecord(c);
                case TaskResultRecord r -> CommandMapper.fromRecord(r);
                case null -> throw new IllegalArgumentException("Expected a command or result, but the value is null");
                default -> throw new IllegalArgumentException("Unexpected record " + record.value().getSchema().getName());
            };
        } catch (RuntimeException e) {
            deadLetter(record.key(), "Unreadable record: " + e.getMessage(), record.value(), DeadLetterMeters.Reason.UNREADABLE);
            return;
        }
        handle(command, record.value());
    }

    /** Dead-letters a record, counted by why and by the topic it came from. */
    private void deadLetter(String key, String reason, SpecificRecord original, DeadLetterMeters.Reason why) {
        effects.deadLetter(key, reason, original, now());
        metrics.deadLettered(why, context.recordMetadata().map(RecordMetadata::topic).orElse(null));
    }

    private void handle(Command command, SpecificRecord original) {
        Instant now = now();
        if (command instanceof KillExecution && deferred.get(command.executionId()) != null) {
            CommandRecord create = deferred.get(command.executionId());
            deferred.delete(command.executionId());
            deadLetter(command.executionId(), "Killed while waiting for its flow: the execution never started", create,
                    DeadLetterMeters.Reason.KILLED_WAITING_FOR_FLOW);
            return;
        }
        var state = new StoreBackedState(command.executionId(), stores);
        try {
            Flow flow = flowOf(command, state);
            if (flow == null && command instanceof CreateExecution create && shouldWaitForFlow(create, now)) {
                deferred.put(create.executionId(), (CommandRecord) original);
                wakeup.by(now.toEpochMilli());
                return;
            }
            Decision decision = decider.decide(state, flow, command, now);
            Effects.Outbox outbox = effects.prepare(command.executionId(), decision, state, flow, now);
            state.flush();
            outbox.send();
            commitIfEnded(decision, now);
            decision.rejection().ifPresent(r -> rejected(command, r, original, now));
            boolean duplicate = decision.rejection().filter(r -> r.kind() == Rejection.Kind.DUPLICATE).isPresent();
            String replayed = duplicate ? replayKey(command) : null;
            if (duplicate && settings.reemitDuplicates() && reemitted.get(replayed) == null) {
                // maybe a replay after a crash: the state is stored, but what its step sent may not have reached Kafka.
                // Only what that step started is sent again, once per command since this processor started: a re-sent
                // dispatch runs again, and its result comes twice too
                reemitted.put(replayed, Boolean.TRUE);
                Flow executionFlow = executionFlow(state);
                Instant stepAt = state.execution().map(e -> Decider.stepOf(e, command)).orElse(null);
                effects.prepare(command.executionId(), decider.reemit(state, executionFlow, stepAt), state, executionFlow,
                        now, Effects.Sending.AGAIN).send();
                metrics.reemitted();
            }
            countHandled(command, decision, state, flow);
        } catch (RecordLimitException e) {
            state.evict();
            LOG.warn("Failing execution {}: {}", command.executionId(), e.getMessage());
            failExecution(command.executionId(), e.getMessage(), now);
            deadLetter(command.executionId(), "Over a limit while handling " + command.getClass().getSimpleName() + ": "
                    + e.getMessage(), original, DeadLetterMeters.Reason.OVER_LIMIT);
        } catch (RuntimeException | Error e) {
            rethrowIfFatal(e);
            state.evict();
            LOG.error("Failed handling {} for execution {}", command.getClass().getSimpleName(), command.executionId(), e);
            failExecution(command.executionId(), "Internal error: " + e, now);
            deadLetter(command.executionId(), "Failed handling " + command.getClass().getSimpleName() + ": " + e, original,
                    DeadLetterMeters.Reason.INTERNAL_ERROR);
        }
    }

    /** What makes a command the same as another: the key of a replay. */
    private static String replayKey(Command command) {
        return switch (command) {
            case TaskResult result -> result.taskRunId() + "/" + result.attempt() + "/" + result.state();
            default -> command.executionId() + "/" + command.getClass().getSimpleName();
        };
    }

    /** Counts a decided command; the decision is applied and sent already, so a failure to count is only logged. */
    private void countHandled(Command command, Decision decision, StoreBackedState state, Flow flow) {
        try {
            metrics.handled(command, decision, state.execution().orElse(null), flow);
        } catch (RuntimeException e) {
            LOG.warn("Counting {} for execution {} failed", command.getClass().getSimpleName(), command.executionId(), e);
        }
    }

    /** The flow a command needs: the execution's own revision once it exists. */
    private Flow flowOf(Command command, StoreBackedState state) {
        if (command instanceof CreateExecution create) {
            return flows.find(create.namespace(), create.flowId(), create.revision());
        }
        return executionFlow(state);
    }

    /** The flow at the revision the execution runs, or null when there is no execution or no such flow. */
    private Flow executionFlow(StoreBackedState state) {
        return state.execution()
                .map(e -> flows.find(e.namespace(), e.flowId(), e.flowRevision()))
                .orElse(null);
    }

    /** A flow posted a moment ago may not have reached the global store yet: wait for it, a while. */
    private boolean shouldWaitForFlow(CreateExecution create, Instant now) {
        return create.requestedAt().plus(settings.flowWait()).isAfter(now);
    }

    private void rejected(Command command, Rejection rejection, SpecificRecord original, Instant now) {
        metrics.rejected(rejection);
        if (rejection.benign()) {
            LOG.debug("Ignored {} for {}: {}", command.getClass().getSimpleName(), command.executionId(), rejection.reason());
        } else {
            LOG.warn("Rejected {} for {}: {}", command.getClass().getSimpleName(), command.executionId(), rejection.reason());
            deadLetter(command.executionId(), rejection.reason(), original, DeadLetterMeters.Reason.INVALID_COMMAND);
        }
    }

    private void failExecution(String executionId, String reason, Instant now) {
        try {
            var state = new StoreBackedState(executionId, stores);
            Decision decision = decider.fail(state, reason, now);
            Effects.Outbox outbox = effects.prepare(executionId, decision, state, null, now, Effects.Sending.FAILURE);
            state.flush();
            outbox.send();
            commitIfEnded(decision, now);
        } catch (RuntimeException | Error e) {
            rethrowIfFatal(e);
            LOG.error("Unable to fail execution {} after an internal error", executionId, e);
        }
    }

    /**
     * An Error while deciding (a StackOverflowError from a pathological flow or expression, a linkage error) fails
     * that execution like any exception; only a JVM that cannot go on (out of memory, an internal error) stops the
     * thread.
     */
    static void rethrowIfFatal(Throwable e) {
        if (e instanceof VirtualMachineError fatal && !(fatal instanceof StackOverflowError)) {
            throw fatal;
        }
    }

    /** An ended execution's snapshot is readable (under exactly-once) only after a commit: ask for one now, if cheap. */
    private void commitIfEnded(Decision decision, Instant now) {
        if (decision.events().stream().anyMatch(ExecutionCompleted.class::isInstance)
                && eagerCommits.ended(now.toEpochMilli(), inputTimestamp)) {
            context.commit();
            metrics.eagerCommit();
        }
    }

    private void punctuate(long wallClockMillis) {
        wakeup.cancel();
        inputTimestamp = Long.MIN_VALUE; // what fires now was not produced by anyone: never worth an eager commit
        Instant now = Instant.ofEpochMilli(wallClockMillis);
        var due = new ArrayList<KeyValue<String, TimerRecord>>();
        try (KeyValueIterator<String, TimerRecord> it =
                     timers.range(TimerKeys.from(firedBefore), TimerKeys.upTo(wallClockMillis))) {
            while (it.hasNext() && due.size() < MAX_TIMERS_PER_PUNCTUATION) {
                due.add(it.next());
            }
        }
        // set before handling, which may store earlier timers; a scan that took all it found leaves nothing due by now
        if (due.size() < MAX_TIMERS_PER_PUNCTUATION) {
            firedBefore = wallClockMillis + 1;
        } else {
            firedBefore = due.getLast().value.getDueAt().toEpochMilli();
        }
        for (KeyValue<String, TimerRecord> entry : due) {
            timers.delete(entry.key);
            Timer timer;
            try {
                timer = ExecutionMapper.fromRecord(entry.value);
            } catch (RuntimeException e) {
                deadLetter(entry.value.getExecutionId(), "Unreadable timer " + entry.key + ": " + e.getMessage(), entry.value,
                        DeadLetterMeters.Reason.UNREADABLE);
                continue;
            }
            if (timer.kind() == Timer.Kind.LEASE && wallClockMillis < leaseGraceUntil) {
                Timer later = new Timer(timer.executionId(), timer.kind(), timer.taskRunId(), timer.attempt(),
                        Instant.ofEpochMilli(leaseGraceUntil));
                timers.put(TimerKeys.of(later), ExecutionMapper.toRecord(later));
                timerStored(leaseGraceUntil);
                continue;
            }
            metrics.timerFired(timer.kind(), wallClockMillis - timer.dueAt().toEpochMilli());
            handle(new TimerFired(timer, now), entry.value);
        }
        retryDeferred(); // a create that still waits is deferred again, which asks for the next wake-up
        wakeForNextTimer();
    }

    /** How long after a fresh start ran-out leases wait: a third of the lease, at most {@link #MAX_LEASE_GRACE}. */
    static Duration leaseGrace(Duration lease) {
        Duration third = lease.dividedBy(3);
        return third.compareTo(MAX_LEASE_GRACE) < 0 ? third : MAX_LEASE_GRACE;
    }

    private void timerStored(long dueMillis) {
        firedBefore = Math.min(firedBefore, dueMillis); // a clock that went back: scan from the new timer
        wakeup.by(dueMillis);
    }

    /** Schedules the next punctuation for the earliest timer, if there is one. */
    private void wakeForNextTimer() {
        try (KeyValueIterator<String, TimerRecord> first = timers.range(TimerKeys.from(firedBefore), null)) {
            if (first.hasNext()) {
                wakeup.by(first.next().value.getDueAt().toEpochMilli());
            }
        }
    }

    private void retryDeferred() {
        List<KeyValue<String, CommandRecord>> waiting = new ArrayList<>();
        try (KeyValueIterator<String, CommandRecord> it = deferred.all()) {
            it.forEachRemaining(waiting::add);
        }
        for (KeyValue<String, CommandRecord> entry : waiting) {
            deferred.delete(entry.key);
            Command command;
            try {
                command = CommandMapper.fromRecord(entry.value);
            } catch (RuntimeException e) {
                deadLetter(entry.key, "Unreadable waiting create: " + e.getMessage(), entry.value,
                        DeadLetterMeters.Reason.UNREADABLE);
                continue;
            }
            handle(command, entry.value);
        }
    }

    private Instant now() {
        return Instant.ofEpochMilli(context.currentSystemTimeMs());
    }

    /**
     * The executor's tunables that are not the decider's. {@code reemitDuplicates}: under at-least-once a
     * duplicate command sends the execution's snapshot and running dispatches again, and stores their timers again
     * (see {@link Decider#reemit}).
     */
    record ExecutorSettings(Duration lease, Duration timerInterval, Duration flowWait, boolean reemitDuplicates,
            ExecutorLimits limits, String topicPrefix) {
    }
}
