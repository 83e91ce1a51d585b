package io.millrace.serdes;

import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link RecoveringStreams} client does when one of its threads dies. A stream thread is replaced after a pause
 * of the {@link RecoveryPolicy}, counted: the pause runs on the dying thread, whose tasks no other thread takes
 * meanwhile, so a record that kills every thread that reads it is retried a few times a minute, not in a hot loop. The
 * client is stopped instead, to be rebuilt on fresh local state, when the global thread died (it cannot be replaced)
 * or when local state points at offsets the cluster does not have (a new thread would read the same checkpoint).
 */
final class ThreadFailures implements StreamsUncaughtExceptionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadFailures.class);

    private final String role;
    private final FailureBackoff backoff;
    private final Counter replacements;
    private final Consumer<Throwable> clientFailed;
    private final CountDownLatch closing = new CountDownLatch(1);

    /** @param clientFailed told why, before the client is stopped to be rebuilt */
    ThreadFailures(String role, RecoveryPolicy policy, Counter replacements, Consumer<Throwable> clientFailed) {
        this.role = role;
        this.backoff = new FailureBackoff(policy);
        this.replacements = replacements;
        this.clientFailed = clientFailed;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable failure) {
        Thread thread = Thread.currentThread();
        if (closing.getCount() == 0) {
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        if (StreamsFailures.isGlobalThread(thread) || StreamsFailures.invalidOffset(failure)) {
            clientFailed.accept(failure);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        Duration pause = backoff.next(System.nanoTime());
        replacements.increment();
        LOG.error("The {}'s stream thread {} failed ({}); it is replaced in {} ms ({} failure(s) in a row)", role,
                thread.getName(), StreamsFailures.describe(failure), pause.toMillis(), backoff.inARow(), failure);
        return paused(pause) ? StreamThreadExceptionResponse.REPLACE_THREAD : StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /** From now on no thread is replaced, and pauses under way end: the client is being closed. */
    void close() {
        closing.countDown();
    }

    /** Whether the whole pause passed (false: the client is closing, or this thread was interrupted). */
    private boolean paused(Duration pause) {
        try {
            return !closing.await(pause.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
