package io.millrace.topology;

import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * The executor's wall-clock punctuation, scheduled only while something waits for it. Kafka Streams commits a task
 * after every punctuation, so a punctuator that ran every interval whatever the load made an idle executor commit
 * (under exactly-once, a whole transaction) many times a second. Punctuations stay at least one interval apart.
 */
final class Wakeup {
    private final ProcessorContext<?, ?> context;
    private final Punctuator punctuator;
    private final long intervalMillis;
    private Cancellable scheduled;
    private long at = Long.MAX_VALUE;

    Wakeup(ProcessorContext<?, ?> context, Duration interval, Punctuator punctuator) {
        this.context = context;
        this.intervalMillis = interval.toMillis();
        this.punctuator = punctuator;
    }

    /** Makes sure the punctuator runs at {@code dueMillis}, but no sooner than one interval from now. */
    void by(long dueMillis) {
        long when = Math.max(dueMillis, context.currentSystemTimeMs() + intervalMillis);
        if (when >= at) {
            return;
        }
        cancel();
        scheduled = context.schedule(Instant.ofEpochMilli(when), Duration.ofMillis(intervalMillis),
                PunctuationType.WALL_CLOCK_TIME, punctuator);
        at = when;
    }

    /** Forgets the schedule; call at the start of a punctuation, which then asks again for what still waits. */
    void cancel() {
        if (scheduled != null) {
            scheduled.cancel();
            scheduled = null;
        }
        at = Long.MAX_VALUE;
    }
}
