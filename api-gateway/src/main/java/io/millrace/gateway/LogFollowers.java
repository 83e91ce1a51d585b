package io.millrace.gateway;

import io.javalin.http.sse.SseClient;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.avro.LogRecord;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * Clients following an execution's log lines ({@code GET /api/v1/logs/{id}/follow}): server-sent events, one a line
 * as {@code GET /api/v1/logs/{id}} shows it (with the same filters), the lines there already first, then each one as
 * the read model stores it; once the execution has ended, and a grace for lines still on their way has passed, the
 * stream ends. One consumer serves every follower, the read model's, which tells this of each line it stores; lines are
 * read and sent on the gateway's response executor. A follower takes a place of {@code max-wait-requests}.
 */
final class LogFollowers {
    /** How long after an execution's end its followers still get lines. */
    static final Duration GRACE = Duration.ofSeconds(1);

    private final ConcurrentMap<String, Set<Follower>> byExecution = new ConcurrentHashMap<>();
    private final Waiters places;
    private final BiFunction<String, String, List<ReadModel.Line>> linesAfter;
    private final Predicate<String> ended;
    private final Executor executor;
    private final Duration grace;

    /** One client, its filter, and the key of the last line it was sent. */
    private static final class Follower {
        private final SseClient client;
        private final Predicate<LogRecord> filter;
        private String lastKey;

        Follower(SseClient client, Predicate<LogRecord> filter) {
            this.client = client;
            this.filter = filter;
        }
    }

    /**
     * @param linesAfter an execution's lines stored after a key (null: from the first), in the order they were sent
     * @param ended whether an execution is known to have ended
     * @param grace how long after an execution's end its followers still get lines (sent by workers, they may come
     *     after the end)
     */
    LogFollowers(Waiters places, BiFunction<String, String, List<ReadModel.Line>> linesAfter, Predicate<String> ended,
            Executor executor, Duration grace) {
        this.places = places;
        this.linesAfter = linesAfter;
        this.ended = ended;
        this.executor = executor;
        this.grace = grace;
    }

    void follow(String executionId, Predicate<LogRecord> filter, SseClient client) {
        var follower = new Follower(client, filter);
        if (!places.follow(byExecution, executionId, follower, client)) {
            return;
        }
        send(executionId, follower);
        if (ended.test(executionId)) {
            endAfterGrace(executionId, Set.of(follower));
        }
    }

    /** A line the read model stored, under its key; sent on to the execution's followers. */
    void onLine(String key) {
        String executionId = SnapshotKeys.executionId(key);
        if (byExecution.containsKey(executionId)) {
            executor.execute(() -> byExecution.getOrDefault(executionId, Set.of()).forEach(f -> send(executionId, f)));
        }
    }

    /** A snapshot the read model stored: a followed execution that ended ends its followers' streams, after a grace. */
    void onSnapshot(String key) {
        if (!SnapshotKeys.isRun(key) && byExecution.containsKey(key)) {
            executor.execute(() -> { // the read of its state, off the read model's thread
                if (ended.test(key)) {
                    endAfterGrace(key, Set.copyOf(byExecution.getOrDefault(key, Set.of())));
                }
            });
        }
    }

    private void endAfterGrace(String executionId, Set<Follower> followers) {
        CompletableFuture.delayedExecutor(grace.toMillis(), TimeUnit.MILLISECONDS, executor).execute(() ->
                followers.forEach(follower -> {
                    send(executionId, follower);
                    synchronized (follower) {
                        follower.client.close();
                    }
                }));
    }

    /** Sends the lines the follower has not had yet. */
    private void send(String executionId, Follower follower) {
        synchronized (follower) {
            if (follower.client.terminated()) {
                return;
            }
            List<ReadModel.Line> lines;
            try {
                lines = linesAfter.apply(executionId, follower.lastKey);
            } catch (ApiException notReadable) {
                return; // the read model is not ready: the next line tries again
            }
            for (ReadModel.Line line : lines) {
                follower.lastKey = line.key();
                if (follower.filter.test(line.record())) {
                    follower.client.sendEvent("message", LogJson.json(List.of(line.record())).get(0).toString());
                }
            }
        }
    }
}
