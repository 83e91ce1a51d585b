package io.millrace.core.decide;

import io.millrace.core.cache.LruCache;
import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.KillExecution;
import io.millrace.core.command.PauseExecution;
import io.millrace.core.command.RestartExecution;
import io.millrace.core.command.ResumeExecution;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.command.SubflowEnded;
import io.millrace.core.command.TaskResult;
import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import io.millrace.core.execution.Execution;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The executor's decision core: given an execution's state, its flow and a command, it appends events (applied at
 * once, so later steps of the same decision see them) and effects. Pure: no I/O, no clock (time comes in as
 * {@code now}), no Kafka; the same inputs give the same decision. It only registers and dispatches: each command type
 * has its {@link CommandHandler}, each timer kind its {@link TimerHandler}, each flowable type its behaviour
 * ({@link Behaviours}).
 */
public final class Decider {
    /** Plans kept: one per running flowable attempt, so enough for the flowables running at once. */
    static final int MAX_CACHED_PLANS = 10_000;
    private final DecisionContext.Parts parts;
    private final Map<Class<? extends Command>, CommandHandler<? extends Command>> handlers = new HashMap<>();
    private final TimerFiredHandler timers = new TimerFiredHandler();
    private final ImpliedEffects implied;

    /** A decider that finds no other flows: its Subflow runs fail, naming the flow they cannot find. */
    public Decider(DeciderSettings settings, Expressions expressions) {
        this(settings, expressions, FlowSource.NONE);
    }

    /**
     * @param flows finds a subflow's child flow and a child's parent flow, and the flow of an execution failed from
     *              outside (whose place under a concurrency limit it gives back)
     */
    public Decider(DeciderSettings settings, Expressions expressions, FlowSource flows) {
        var subflows = new Subflows(expressions, flows, settings);
        this.parts = new DecisionContext.Parts(settings, expressions, new Appliers(), new Behaviours(),
                new LruCache<>(MAX_CACHED_PLANS), subflows, flows);
        this.implied = new ImpliedEffects(settings, subflows);
        register(CreateExecution.class, new CreateHandler());
        register(KillExecution.class, new KillHandler());
        register(TaskResult.class, new ResultHandler());
        register(TimerFired.class, timers);
        register(PauseExecution.class, new PauseHandler());
        register(ResumeExecution.class, new ResumeHandler());
        register(SubflowEnded.class, new SubflowEndedHandler());
        register(RestartExecution.class, new RestartHandler());
        register(SlotAnswer.class, new SlotAnswerHandler());
    }

    private <C extends Command> void register(Class<C> type, CommandHandler<C> handler) {
        handlers.put(type, handler);
    }

    /**
     * Forgets the plans kept across decisions, for a state that may have gone back (a stream task revived after an
     * aborted transaction restores its stores to the last commit).
     */
    public void forgetPlans() {
        parts.plans().clear();
    }

    /**
     * @param state the execution's state; events are applied to it as they are decided
     * @param flow the execution's flow at its revision (for a create, the flow to start), or null when it cannot be
     *             found
     */
    @SuppressWarnings("unchecked")
    public Decision decide(MutableExecutionState state, Flow flow, Command command, Instant now) {
        var handler = (CommandHandler<Command>) handlers.get(command.getClass());
        if (handler == null) {
            throw new IllegalStateException("Expected a handler for " + command.getClass().getSimpleName()
                    + ", but none is registered");
        }
        return handler.decide(command, new DecisionContext(parts, state, flow, command.executionId(), now));
    }

    /**
     * Ends an execution FAILED from outside the normal course, e.g. after an internal error while handling one of its
     * commands. Its open task runs end FAILED too.
     */
    public Decision fail(MutableExecutionState state, String reason, Instant now) {
        Execution execution = state.execution().orElse(null);
        if (execution == null || execution.state().isTerminal()) {
            return Decision.rejected(Rejection.Kind.STALE, "Expected a running execution to fail, but "
                    + (execution == null ? "there is none" : execution.id() + " is already " + execution.state()));
        }
        return new DecisionContext(parts, state, null, execution.id(), now).fail(reason, reason);
    }

    /** What the stored state implies must have been sent and stored ({@link ImpliedEffects}): every part of it. */
    public Decision reemit(ExecutionView state, Flow flow) {
        return implied.of(state, flow, null);
    }

    /**
     * As {@link #reemit(ExecutionView, Flow)}, for the step of one duplicate command: only the attempts and timers
     * that step and the later ones started ({@code stepAt}, when it was decided; null: every one) are sent again, so a
     * replayed result does not send every running dispatch of its execution again.
     */
    public Decision reemit(ExecutionView state, Flow flow, Instant stepAt) {
        return implied.of(state, flow, stepAt);
    }

    /** When the step that handled a command was decided, if the state shows it: for {@link #reemit}. */
    public static Instant stepOf(Execution execution, Command command) {
        return ImpliedEffects.stepOf(execution, command);
    }

    /** The command types with a handler. */
    Set<Class<? extends Command>> commandTypes() {
        return handlers.keySet();
    }

    /** The timer kinds with a handler. */
    Set<Timer.Kind> timerKinds() {
        return timers.kinds();
    }

    /** The flowable types with a behaviour. */
    Set<Class<? extends Flowable>> flowableTypes() {
        return parts.behaviours().types();
    }
}
