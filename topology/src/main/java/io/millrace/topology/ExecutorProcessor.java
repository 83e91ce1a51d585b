package io.millrace.topology;

import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.ExecutorLimits;
import io.millrace.core.cache.LruCache;
import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.SlotCommand;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Rejection;
import io.millrace.core.flow.Flow;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.TimerRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapts the decider to Kafka Streams: decodes a command or result, loads its execution's state from the stores,
 * decides, stores the outcome and sends the decision's records. Beside it: {@link DueTimers} fires timers at a
 * wall-clock punctuation, {@link DeferredCreates} keeps creates that wait for their flow, {@link Pacing} those that
 * wait for a place to start, {@link Reemission} sends a duplicate's step again under at-least-once,
 * {@link HandlingFailures} turns a failure while handling one record into that execution's failure and a dead letter
 * (it never stops the stream thread), and {@link FlowSlots} decides the commands keyed by a flow (its concurrency
 * slots). Results come first ({@link ResultsFirst}): their timestamps are read back here.
 */
final class ExecutorProcessor implements Processor<String, SpecificRecord, String, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorProcessor.class);
    /** Executions kept decoded in memory per stream task (and executions re-sent since it started). */
    static final int MAX_CACHED_EXECUTIONS = 2_000;

    private final Decider decider;
    private final ExecutorSettings settings;
    private final ExecutorMetrics metrics;
    private final EagerCommits eagerCommits;
    private final PaceGauges paceGauges;
    private final StartedOffsets startedOffsets;
    private final BiConsumer<Command, SpecificRecord> handler = this::handle;
    private ProcessorContext<String, Object> context;
    private StoreBackedState.Stores stores;
    private final FlowLookup flows;
    private Effects effects;
    private AwaitedCommits commits;
    private CountedDeadLetters deadLetters;
    private Wakeup wakeup;
    private DueTimers dueTimers;
    private DeferredCreates deferredCreates;
    private PaceGauges.Counts paceCounts;
    private Pacing pacing;
    private Reemission reemission;
    private HandlingFailures failures;
    private FlowSlots slots;
    /** Until when (epoch millis) leases that ran out are not judged yet: a while after a fresh start. */
    private long leaseGraceUntil;

    /** @param eagerCommits, {@code paceGauges} and {@code startedOffsets}: shared by the instance's stream tasks */
    /** @param flows the decider's source of other flows too, bound to the flows store once initialized */
    ExecutorProcessor(Decider decider, FlowLookup flows, ExecutorSettings settings, EagerCommits eagerCommits,
            PaceGauges paceGauges, StartedOffsets startedOffsets, MeterRegistry registry) {
        this.decider = decider;
        this.flows = flows;
        this.settings = settings;
        this.eagerCommits = eagerCommits;
        this.paceGauges = paceGauges;
        this.startedOffsets = startedOffsets;
        this.metrics = new ExecutorMetrics(registry, settings.topicPrefix());
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        // a new cache whenever the stores may have been rolled back to the last commit (see below)
        this.stores = new StoreBackedState.Stores(context.getStateStore(Names.EXECUTIONS_STORE),
                context.getStateStore(Names.TASK_RUNS_STORE), context.getStateStore(Names.OUTPUTS_STORE),
                new LruCache<>(MAX_CACHED_EXECUTIONS));
        decider.forgetPlans();
        KeyValueStore<String, TimerRecord> timers = context.getStateStore(Names.TIMERS_STORE);
        KeyValueStore<String, CommandRecord> deferred = context.getStateStore(Names.DEFERRED_STORE);
        KeyValueStore<String, FlowRecord> flowStore = context.getStateStore(Names.FLOWS_STORE);
        flows.bind(flowStore);
        // Kafka Streams initializes the same processor again when it revives a task after an aborted transaction: its
        // punctuation schedules survive (cancel ours, or it would run every interval for good), and its stores are
        // back at the last commit (the timers fired since then are back and must fire again).
        if (wakeup != null) {
            wakeup.cancel();
            commits.cancel();
        } else {
            // a fresh start (after a stop or a crash): results that came while the executor was down are still to be
            // read; a lease that ran out meanwhile is judged only once they had a chance to end its attempt
            leaseGraceUntil = context.currentSystemTimeMs() + DueTimers.leaseGrace(settings.lease()).toMillis();
        }
        this.wakeup = new Wakeup(context, settings.timerInterval(), this::punctuate);
        this.deadLetters = new CountedDeadLetters(context, settings.limits(), metrics);
        this.dueTimers = new DueTimers(timers, wakeup, leaseGraceUntil, metrics, deadLetters, handler);
        this.effects = new Effects(context, timers, settings.lease(), settings.limits(), dueTimers::stored);
        this.commits = new AwaitedCommits(context, eagerCommits, metrics);
        this.deferredCreates = new DeferredCreates(deferred, settings.flowWait(), wakeup, deadLetters, handler);
        if (paceCounts == null) {
            paceCounts = paceGauges.open();
        }
        this.pacing = new Pacing(new Admissions(context.getStateStore(Names.ADMISSIONS_STORE)),
                new RunningExecutions(settings.limits().maxRunningExecutions()), paceCounts, startedOffsets,
                context.taskId().partition(), new Topics(settings.topicPrefix()).commands().name(), wakeup, deadLetters,
                handler);
        this.reemission = new Reemission(settings.reemitDuplicates(), decider, flows, effects, metrics);
        this.failures = new HandlingFailures(decider, stores, effects, commits, deadLetters);
        this.slots = new FlowSlots(context.getStateStore(Names.SLOTS_STORE), settings.limits().maxQueuedExecutions(),
                context, deadLetters);
        dueTimers.wakeForNext();
        deferredCreates.wakeIfAnyWaits(context.currentSystemTimeMs()); // creates left waiting before a restart
        pacing.wakeIfAnyWaits(context.currentSystemTimeMs());
    }

    @Override
    public void close() {
        if (paceCounts != null) {
            paceGauges.close(paceCounts);
            startedOffsets.forget(context.taskId().partition());
            paceCounts = null;
        }
    }

    @Override
    public void process(Record<String, SpecificRecord> record) {
        commits.reading(record.value() instanceof TaskResultRecord ? ResultsFirst.produced(record.timestamp())
                : record.timestamp());
        if (pacing.parks(record.value(), context.recordMetadata().orElse(null))) {
            return;
        }
        Command command;
        try {
            command = switch (record.value()) {
                case CommandRecord c -> CommandMapper.fromRecord(c);
                case TaskResultRecord r -> CommandMapper.fromRecord(r);
                case null -> throw new IllegalArgumentException("Expected a command or result, but the value is null");
                default -> throw new IllegalArgumentException("Unexpected record " + record.value().getSchema().getName());
            };
        } catch (RuntimeException e) {
            deadLetters.send(record.key(), "Unreadable record: " + e.getMessage(), record.value(),
                    DeadLetterMeters.Reason.UNREADABLE);
            return;
        }
        if (command instanceof SlotCommand slot) {
            slots.handle(slot, record.value()); // keyed by a flow, not an execution
            return;
        }
        handle(command, record.value());
        pacing.admit(context.currentSystemTimeMs());
    }

    /** Decides a command and carries the decision out; a timer's or a waiting create's too. */
    private void handle(Command command, SpecificRecord original) {
        Instant now = now();
        if (command instanceof KillExecution && deferredCreates.killWaiting(command.executionId())) {
            return;
        }
        var state = new StoreBackedState(command.executionId(), stores);
        if (command instanceof KillExecution && state.execution().isEmpty()) {
            context.recordMetadata().ifPresent(read -> pacing.killedBeforeStart(command.executionId(), read.offset()));
        }
        try {
            Flow flow = flowOf(command, state);
            if (flow == null && command instanceof CreateExecution create
                    && deferredCreates.waitForFlow(create, original, now)) {
                return;
            }
            Decision decision = decider.decide(state, flow, command, now);
            Effects.Outbox outbox = effects.prepare(command.executionId(), decision, state, flow, now);
            state.flush();
            outbox.send();
            commits.ifAwaited(decision, now);
            decision.rejection().ifPresent(r -> rejected(command, r, original));
            if (decision.rejection().filter(r -> Reemission.replayed(command, r)).isPresent()) {
                reemission.duplicate(command, state, now);
            }
            countHandled(command, decision, state, flow);
            pacing.seen(command.executionId(), state.execution().filter(e -> e.state().holdsAPlace()).isPresent());
        } catch (RecordLimitException e) {
            pacing.seen(command.executionId(), false);
            failures.overLimit(command, e, original, state, now);
        } catch (RuntimeException | Error e) {
            pacing.seen(command.executionId(), false);
            failures.unexpected(command, e, original, state, now);
        }
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
        return flows.ofExecution(state);
    }

    private void rejected(Command command, Rejection rejection, SpecificRecord original) {
        metrics.rejected(rejection);
        if (rejection.benign()) {
            LOG.debug("Ignored {} for {}: {}", command.getClass().getSimpleName(), command.executionId(), rejection.reason());
        } else {
            LOG.warn("Rejected {} for {}: {}", command.getClass().getSimpleName(), command.executionId(), rejection.reason());
            deadLetters.send(command.executionId(), rejection.reason(), original, DeadLetterMeters.Reason.INVALID_COMMAND);
        }
    }

    /**
     * Fires the due timers, hands the creates that wait for their flow to {@link #handle} again, and starts the creates
     * that wait for a place while there is one.
     */
    private void punctuate(long wallClockMillis) {
        wakeup.cancel();
        commits.punctuating();
        dueTimers.fire(wallClockMillis);
        deferredCreates.retry(); // a create that still waits is deferred again, which asks for the next wake-up
        pacing.admit(wallClockMillis);
        dueTimers.wakeForNext();
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
