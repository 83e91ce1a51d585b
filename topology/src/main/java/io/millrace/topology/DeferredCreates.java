package io.millrace.topology;

import io.millrace.core.command.Command;
import io.millrace.core.command.CreateExecution;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.avro.CommandRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Creates whose flow has not reached the global flows store yet: a flow posted a moment ago may still be on its way.
 * Such a create waits in {@code executor-deferred}, and every punctuation hands it to the processor again until
 * {@code flowWait} after it was requested; from then on the decider rejects it like any create of a missing flow.
 */
final class DeferredCreates {
    private final KeyValueStore<String, CommandRecord> store;
    private final Duration flowWait;
    private final Wakeup wakeup;
    private final CountedDeadLetters deadLetters;
    private final BiConsumer<Command, SpecificRecord> handler;
    /** Whether the create being handled again waited again ({@link #waitForFlow} while {@link #retry} hands it on). */
    private boolean waitedAgain;

    /** @param handler handles a waiting create again, as the processor handles a command */
    DeferredCreates(KeyValueStore<String, CommandRecord> store, Duration flowWait, Wakeup wakeup,
            CountedDeadLetters deadLetters, BiConsumer<Command, SpecificRecord> handler) {
        this.store = store;
        this.flowWait = flowWait;
        this.wakeup = wakeup;
        this.deadLetters = deadLetters;
        this.handler = handler;
    }

    /** Asks for a wake-up now when creates were left waiting before a restart. */
    void wakeIfAnyWaits(long nowMillis) {
        try (KeyValueIterator<String, CommandRecord> waiting = store.all()) {
            if (waiting.hasNext()) {
                wakeup.by(nowMillis);
            }
        }
    }

    /**
     * Keeps a create whose flow was not found, while that flow may still come.
     *
     * @param original the create's {@link CommandRecord}
     * @return false when the create has waited long enough, and must be decided without its flow
     */
    boolean waitForFlow(CreateExecution create, SpecificRecord original, Instant now) {
        if (!create.requestedAt().plus(flowWait).isAfter(now)) {
            return false;
        }
        store.put(create.executionId(), (CommandRecord) original);
        waitedAgain = true;
        wakeup.by(now.toEpochMilli());
        return true;
    }

    /** A kill of an execution whose create still waits: the create is dead-lettered. False when none waits. */
    boolean killWaiting(String executionId) {
        CommandRecord create = store.get(executionId);
        if (create == null) {
            return false;
        }
        store.delete(executionId);
        deadLetters.send(executionId, "Killed while waiting for its flow: the execution never started", create,
                DeadLetterMeters.Reason.KILLED_WAITING_FOR_FLOW);
        return true;
    }

    /**
     * Hands every waiting create to the handler again; one whose flow is still missing waits again. A create leaves
     * the store only once handled: under at-least-once the store's changelog is written through, and a crash between
     * its deletion and the state it led to would lose the execution; one handled twice is a duplicate.
     */
    void retry() {
        List<KeyValue<String, CommandRecord>> waiting = new ArrayList<>();
        try (KeyValueIterator<String, CommandRecord> it = store.all()) {
            it.forEachRemaining(waiting::add);
        }
        for (KeyValue<String, CommandRecord> entry : waiting) {
            Command command;
            try {
                command = CommandMapper.fromRecord(entry.value);
            } catch (RuntimeException e) {
                deadLetters.send(entry.key, "Unreadable waiting create: " + e.getMessage(), entry.value,
                        DeadLetterMeters.Reason.UNREADABLE);
                store.delete(entry.key);
                continue;
            }
            waitedAgain = false;
            handler.accept(command, entry.value);
            if (!waitedAgain) {
                store.delete(entry.key);
            }
        }
    }
}
