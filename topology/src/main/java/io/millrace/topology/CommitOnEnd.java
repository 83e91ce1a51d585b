package io.millrace.topology;

import io.millrace.core.decide.Decision;
import io.millrace.core.event.ExecutionCompleted;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * An ended execution's snapshot is readable (under exactly-once) only after a commit: this asks for one as soon as a
 * decision ends an execution, when {@link EagerCommits} finds it cheap. One per stream task: it knows when the record
 * being handled was produced.
 */
final class CommitOnEnd {
    private final ProcessorContext<?, ?> context;
    private final EagerCommits eagerCommits;
    private final ExecutorMetrics metrics;
    /** When the record being handled was produced (epoch millis); {@link Long#MIN_VALUE} for a timer's command. */
    private long inputTimestamp = Long.MIN_VALUE;

    CommitOnEnd(ProcessorContext<?, ?> context, EagerCommits eagerCommits, ExecutorMetrics metrics) {
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

    void ifEnded(Decision decision, Instant now) {
        if (decision.events().stream().anyMatch(ExecutionCompleted.class::isInstance)
                && eagerCommits.ended(now.toEpochMilli(), inputTimestamp)) {
            context.commit();
            metrics.eagerCommit();
        }
    }
}
