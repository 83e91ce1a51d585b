package io.millrace.topology;

import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Effect;
import io.millrace.core.event.ExecutionCompleted;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Under exactly-once what a decision sends is readable only after a commit: this asks for one when a reader waits
 * for it, at once or at the time {@link EagerCommits} paces it to (a one-off wall-clock punctuation, which Kafka
 * Streams runs just before it checks for asked commits). Readers wait for an ended execution's snapshot (the gateway,
 * {@code ?wait=true}), and for the commands the executor sends itself (a subflow's create, its end's notice to the
 * parent, a kill that cascades) and the kills its workers read. A dispatch alone asks for none: workers read tasks
 * before their commit. One per stream task: it knows when the record being handled was produced.
 */
final class AwaitedCommits {
    /** A deferred ask is cancelled when it runs; the interval only has to be valid. */
    private static final Duration ONCE = Duration.ofDays(1);

    private final ProcessorContext<?, ?> context;
    private final EagerCommits eagerCommits;
    private final ExecutorMetrics metrics;
    /** When the record being handled was produced (epoch millis); {@link Long#MIN_VALUE} for a timer's command. */
    private long inputTimestamp = Long.MIN_VALUE;
    private Cancellable deferred;
    private long deferredAt = EagerCommits.NEVER;
    /** When the first end the deferred ask is for was decided (epoch millis). */
    private long pendingSince;

    AwaitedCommits(ProcessorContext<?, ?> context, EagerCommits eagerCommits, ExecutorMetrics metrics) {
        this.context = context;
        this.eagerCommits = eagerCommits;
        this.metrics = metrics;
    }

    /** The decisions that follow are on a record produced at {@code producedAtMillis}. */
    void reading(long producedAtMillis) {
        inputTimestamp = producedAtMillis;
    }

    /** The decisions that follow are on what a punctuation fires, which no one produced: never worth an eager commit. */
    void punctuating() {
        inputTimestamp = Long.MIN_VALUE;
    }

    void ifAwaited(Decision decision, Instant now) {
        if (inputTimestamp == Long.MIN_VALUE || !awaited(decision)) {
            return;
        }
        long nowMillis = now.toEpochMilli();
        long at = eagerCommits.askAt(nowMillis, inputTimestamp, CommitClock.ofThisThread());
        if (at == nowMillis) {
            ask();
        } else if (at < deferredAt) {
            if (deferred == null) {
                pendingSince = nowMillis;
            } else {
                deferred.cancel();
            }
            deferred = context.schedule(Instant.ofEpochMilli(at), ONCE, PunctuationType.WALL_CLOCK_TIME,
                    this::askIfStillPending);
            deferredAt = at;
        }
    }

    private static boolean awaited(Decision decision) {
        return decision.events().stream().anyMatch(ExecutionCompleted.class::isInstance)
                || decision.effects().stream().anyMatch(e -> e instanceof Effect.SendCommand || e instanceof Effect.StopTasks);
    }

    /** Forgets a deferred ask: Kafka Streams initializes the processor again after an aborted transaction. */
    void cancel() {
        if (deferred != null) {
            deferred.cancel();
            deferred = null;
            deferredAt = EagerCommits.NEVER;
        }
    }

    private void askIfStillPending(long wallClockMillis) {
        cancel();
        // a commit that ended in the same millisecond as the first end may have been before it: ask once more
        if (CommitClock.ofThisThread().endedMillis() <= pendingSince) {
            ask();
        }
    }

    private void ask() {
        context.commit();
        metrics.eagerCommit();
    }
}
