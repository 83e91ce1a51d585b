package io.millrace.topology;

import io.millrace.core.command.Command;
import io.millrace.core.decide.Decider;
import io.millrace.core.decide.Decision;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a command whose handling threw leads to: the decision is forgotten, the execution fails with the error
 * (a create that throws has no execution to fail), and the command is dead-lettered with a counted reason. Only a
 * JVM that cannot go on stops the stream thread.
 */
final class HandlingFailures {
    /** The processor's logger, as before these failures had a class of their own: log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorProcessor.class);

    private final Decider decider;
    private final StoreBackedState.Stores stores;
    private final Effects effects;
    private final AwaitedCommits commits;
    private final CountedDeadLetters deadLetters;

    HandlingFailures(Decider decider, StoreBackedState.Stores stores, Effects effects, AwaitedCommits commits,
            CountedDeadLetters deadLetters) {
        this.decider = decider;
        this.stores = stores;
        this.effects = effects;
        this.commits = commits;
        this.deadLetters = deadLetters;
    }

    /** A step whose records would be over a limit: the execution fails, naming the limit. */
    void overLimit(Command command, RecordLimitException e, SpecificRecord original, StoreBackedState state, Instant now) {
        state.evict();
        LOG.warn("Failing execution {}: {}", command.executionId(), e.getMessage());
        failExecution(command.executionId(), e.getMessage(), now);
        deadLetters.send(command.executionId(), "Over a limit while handling " + command.getClass().getSimpleName() + ": "
                + e.getMessage(), original, DeadLetterMeters.Reason.OVER_LIMIT);
    }

    /** Anything else thrown while deciding or sending: a bug, or a pathological flow; see {@link #rethrowIfFatal}. */
    void unexpected(Command command, Throwable e, SpecificRecord original, StoreBackedState state, Instant now) {
        rethrowIfFatal(e);
        state.evict();
        String id = Long.toString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 1, 36);
        LOG.error("Error id {}: failed handling {} for execution {}", id, command.getClass().getSimpleName(),
                command.executionId(), e);
        // the execution's error is read through the API: the failure itself stays in this log, under the id
        failExecution(command.executionId(), "Internal error; the executor's log has the details under error id " + id,
                now);
        deadLetters.send(command.executionId(), "Failed handling " + command.getClass().getSimpleName() + ": " + e,
                original, DeadLetterMeters.Reason.INTERNAL_ERROR);
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

    private void failExecution(String executionId, String reason, Instant now) {
        try {
            var state = new StoreBackedState(executionId, stores);
            Decision decision = decider.fail(state, reason, now);
            Effects.Outbox outbox = effects.prepare(executionId, decision, state, null, now, Effects.Sending.FAILURE);
            state.flush();
            outbox.send();
            commits.ifAwaited(decision, now);
        } catch (RuntimeException | Error e) {
            rethrowIfFatal(e);
            LOG.error("Unable to fail execution {} after an internal error", executionId, e);
        }
    }
}
