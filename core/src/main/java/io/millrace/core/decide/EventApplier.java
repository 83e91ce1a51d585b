package io.millrace.core.decide;

import io.millrace.core.event.Event;

/** Folds one kind of event into an execution's state. The only code that changes state. */
@FunctionalInterface
public interface EventApplier<E extends Event> {
    void apply(E event, MutableExecutionState state);
}
