package io.millrace.serdes;

import java.util.Objects;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.streams.KafkaStreams;

/** What a Kafka Streams failure says about how to recover from it. */
final class StreamsFailures {
    /** Kafka Streams names a client's global thread {@code <client id>-GlobalStreamThread}. */
    private static final String GLOBAL_THREAD_SUFFIX = "-GlobalStreamThread";
    /** Causes looked at, at most: a chain can loop. */
    private static final int MAX_DEPTH = 32;

    private StreamsFailures() {
    }

    /**
     * Whether local state points at offsets the cluster does not have (a checkpoint older than the topic's retention,
     * or from another cluster): only a client on fresh local state gets past it.
     */
    static boolean invalidOffset(Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth < MAX_DEPTH; depth++, cause = cause.getCause()) {
            if (cause instanceof InvalidOffsetException || cause instanceof OffsetOutOfRangeException) {
                return true;
            }
        }
        return false;
    }

    /** A global stream thread cannot be replaced: its client stops, and must be built again. */
    static boolean isGlobalThread(Thread thread) {
        return thread.getName().endsWith(GLOBAL_THREAD_SUFFIX);
    }

    /**
     * Whether the client's global thread runs. Kafka Streams (4.3) can lose it without a word: when restoring a global
     * store fails on an out-of-range offset, wiping the store throws again, the thread ends, and the client waits in
     * REBALANCING for ever. The thread is found by its name, made of the client id that the client's own metrics carry.
     */
    static boolean globalThreadAlive(KafkaStreams client) {
        String clientId = client.metrics().keySet().stream()
                .filter(name -> name.group().equals("stream-metrics"))
                .map(name -> name.tags().get("client-id"))
                .filter(Objects::nonNull)
                .findFirst().orElse(null);
        if (clientId == null) {
            return true; // nothing to tell by: assume it runs
        }
        String name = clientId + GLOBAL_THREAD_SUFFIX;
        return Thread.getAllStackTraces().keySet().stream().anyMatch(thread -> thread.getName().equals(name));
    }

    /** One line for a log: the innermost cause's type and message, which name what actually went wrong. */
    static String describe(Throwable failure) {
        if (failure == null) {
            return "no exception reported";
        }
        Throwable root = failure;
        for (int depth = 0; root.getCause() != null && depth < MAX_DEPTH; depth++) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
