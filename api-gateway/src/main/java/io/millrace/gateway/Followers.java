package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.sse.SseClient;
import io.millrace.core.execution.State;
import io.millrace.serdes.SnapshotKeys;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Clients following executions ({@code GET /api/v1/executions/{id}/follow}): server-sent events, a frame with the
 * execution as {@code GET /api/v1/executions/{id}} shows it at once ({@code id: start}) and on every change
 * ({@code id: progress}), and the stream ends after the frame of its terminal state; an execution still unknown after
 * {@code wait-timeout} ends it with an {@code error} event. One consumer serves every
 * follower: the read model's, which tells this of each snapshot once it is stored; frames are built and sent on the
 * gateway's response executor, never on the read model's thread. A follower takes a place of {@code max-wait-requests},
 * as a waiter does.
 */
final class Followers {
    private final ConcurrentMap<String, Set<Follower>> byExecution = new ConcurrentHashMap<>();
    private final Waiters places;
    private final Function<String, Optional<ObjectNode>> read;
    private final Executor executor;
    private final Duration patience;

    /** One client, whether it had its first frame, and which namespaces it may see. */
    private record Follower(SseClient client, AtomicBoolean started, Predicate<String> visible) {
    }

    /**
     * @param places whose {@code max-wait-requests} places followers share
     * @param read an execution as the API shows it, if it is known
     * @param patience how long a follower of an execution not known yet waits for it ({@code wait-timeout}): one just
     *     started may not have reached the read model
     */
    Followers(Waiters places, Function<String, Optional<ObjectNode>> read, Executor executor, Duration patience) {
        this.places = places;
        this.read = read;
        this.executor = executor;
        this.patience = patience;
    }

    /**
     * The frames of one execution for {@code client}, from its state now; none when there is no place left. An
     * execution of a namespace that {@code visible} refuses ends the stream with an error event instead.
     */
    void follow(String executionId, SseClient client, Predicate<String> visible) {
        var follower = new Follower(client, new AtomicBoolean(), visible);
        if (!places.follow(byExecution, executionId, follower, client)) {
            return;
        }
        send(executionId, Set.of(follower));
        CompletableFuture.delayedExecutor(patience.toMillis(), TimeUnit.MILLISECONDS, executor).execute(() -> {
            synchronized (follower) {
                if (!follower.started().get() && !client.terminated()) {
                    client.sendEvent("error", "Execution '" + executionId + "' not found");
                    client.close();
                }
            }
        });
    }

    /** Every snapshot the read model stored, as it came; only an execution's own snapshot, when followed, is sent on. */
    void onSnapshot(String key, byte[] encoded) {
        if (!SnapshotKeys.isRun(key) && byExecution.containsKey(key)) {
            executor.execute(() -> {
                Set<Follower> followers = byExecution.get(key);
                if (followers != null) {
                    send(key, followers);
                }
            });
        }
    }

    /**
     * Sends the execution's latest state (a frame sent late is the latest still; a follower's first is {@code start},
     * the others {@code progress}), and ends the streams once it ends.
     */
    private void send(String executionId, Set<Follower> followers) {
        Optional<ObjectNode> execution;
        try {
            execution = read.apply(executionId);
        } catch (ApiException notReadable) {
            return; // the read model is not ready or cannot read it: the next snapshot tries again
        }
        execution.ifPresent(json -> {
            boolean ended = State.valueOf(json.at("/state/current").asText()).isTerminal();
            for (Follower follower : Set.copyOf(followers)) {
                synchronized (follower) {
                    SseClient client = follower.client();
                    String namespace = json.path("namespace").asText();
                    if (!client.terminated() && !follower.visible().test(namespace)) {
                        client.sendEvent("error", "Execution '" + executionId + "' is in namespace '" + namespace
                                + "', on which this principal has no viewer grant");
                        client.close();
                    } else if (!client.terminated()) {
                        client.sendEvent("message", json.toString(),
                                follower.started().getAndSet(true) ? "progress" : "start");
                        if (ended) {
                            client.close();
                        }
                    }
                }
            }
        });
    }
}
