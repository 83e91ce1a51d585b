package io.millrace.core.decide;

import io.millrace.core.command.Timer;

/**
 * Decides what one kind of timer does when it fires ({@link TimerFiredHandler} registers one for each kind). A timer
 * that fires after what it guarded has moved on (a cancel lost in a crash, a kill) changes nothing.
 */
@FunctionalInterface
interface TimerHandler {
    Decision fire(Timer timer, DecisionContext context);
}
