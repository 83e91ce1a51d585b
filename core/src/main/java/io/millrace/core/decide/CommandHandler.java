package io.millrace.core.decide;

import io.millrace.core.command.Command;

/** Decides one type of command ({@link Decider} registers one for each). */
@FunctionalInterface
interface CommandHandler<C extends Command> {
    Decision decide(C command, DecisionContext context);
}
