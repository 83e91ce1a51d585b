package io.millrace.core.decide;

import io.millrace.core.command.Timer;
import io.millrace.core.command.TimerFired;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * A timer fired: decided by the handler registered for its kind. A timer that changes nothing is STALE: what it
 * guarded moved on, or, under at-least-once, it fired before a crash that took its deletion with it, and what its step
 * sent may be lost (the executor then sends again what the state implies, as for a duplicate command).
 */
final class TimerFiredHandler implements CommandHandler<TimerFired> {
    private final Map<Timer.Kind, TimerHandler> byKind = new EnumMap<>(Timer.Kind.class);

    TimerFiredHandler() {
        byKind.put(Timer.Kind.LEASE, new LeaseExpiredHandler());
        byKind.put(Timer.Kind.RETRY, new RetryDueHandler());
        byKind.put(Timer.Kind.TIMEOUT, new TimeoutHandler());
        byKind.put(Timer.Kind.PURGE, new PurgeHandler());
        byKind.put(Timer.Kind.RESUME, new ResumeDueHandler());
        byKind.put(Timer.Kind.RETRY_EXECUTION, new RetryExecutionDueHandler());
    }

    @Override
    public Decision decide(TimerFired fired, DecisionContext context) {
        TimerHandler handler = byKind.get(fired.timer().kind());
        if (handler == null) {
            throw new IllegalStateException("Expected a handler for timers of kind " + fired.timer().kind()
                    + ", but none is registered");
        }
        Decision decision = handler.fire(fired.timer(), context);
        if (decision.events().isEmpty() && decision.effects().isEmpty() && decision.rejection().isEmpty()) {
            Timer timer = fired.timer();
            return Decision.rejected(Rejection.Kind.STALE, "The " + timer.kind() + " timer of " + timer.taskRunId()
                    + " attempt " + timer.attempt() + " found its run moved on");
        }
        return decision;
    }

    /** The kinds with a handler. */
    Set<Timer.Kind> kinds() {
        return byKind.keySet();
    }
}
