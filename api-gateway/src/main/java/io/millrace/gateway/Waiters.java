package io.millrace.gateway;

import io.javalin.http.sse.SseClient;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.SnapshotKeys;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Requests waiting for an execution to end ({@code ?wait=true}), by execution id.
 *
 * <p>Contract: {@link #register} is called before the create command is produced, so the terminal
 * snapshot cannot arrive unseen. The future completes with the terminal snapshot, or with
 * {@code null} when the timeout passes first; either way the entry is removed (no leak).
 * At most {@code max} requests wait at once ({@code ?wait=true} and followers), and apart from them at most
 * {@code maxWebhook} webhook calls, so that callers of webhooks, who hold no token, cannot take every place; one more
 * is refused with 429 rather than queued.
 * {@link #onSnapshot} runs on the read model's global thread: it only completes futures, so callers
 * must continue asynchronously on their own executor.
 */
final class Waiters {
    /** What a caller turned away is told to wait before trying again. */
    static final int RETRY_AFTER_SECONDS = 1;

    private final ConcurrentMap<String, CompletableFuture<ExecutionSnapshot>> byExecution = new ConcurrentHashMap<>();
    private final int max;
    private final Semaphore slots;
    private final int maxWebhook;
    private final Semaphore webhookSlots;

    /** @param max the most waiters at once ({@code max-wait-requests}), webhook calls as many again */
    Waiters(int max) {
        this(max, max);
    }

    /**
     * @param max the most waiters and followers at once ({@code max-wait-requests})
     * @param maxWebhook the most webhook calls waiting at once ({@code max-webhook-wait-requests})
     */
    Waiters(int max, int maxWebhook) {
        this.max = max;
        this.slots = new Semaphore(max);
        this.maxWebhook = maxWebhook;
        this.webhookSlots = new Semaphore(maxWebhook);
    }

    /** @throws ApiException 429 when {@code max} requests already wait */
    CompletableFuture<ExecutionSnapshot> register(String executionId, Duration timeout) {
        return register(executionId, timeout, slots, () -> ApiException.tooManyRequests("Too many requests are"
                + " waiting for executions to end (max-wait-requests = " + max + "); retry later, or start the"
                + " execution without waiting and read it by its id", RETRY_AFTER_SECONDS));
    }

    /** A webhook call that waits: @throws ApiException 429 when {@code maxWebhook} webhook calls already wait */
    CompletableFuture<ExecutionSnapshot> registerWebhook(String executionId, Duration timeout) {
        return register(executionId, timeout, webhookSlots, () -> ApiException.tooManyRequests("Too many webhook"
                + " calls are waiting for executions to end (max-webhook-wait-requests = " + maxWebhook + "); retry"
                + " later", RETRY_AFTER_SECONDS));
    }

    private CompletableFuture<ExecutionSnapshot> register(String executionId, Duration timeout, Semaphore slots,
            java.util.function.Supplier<ApiException> refusal) {
        if (!slots.tryAcquire()) {
            throw refusal.get();
        }
        var waiter = new CompletableFuture<ExecutionSnapshot>();
        if (byExecution.putIfAbsent(executionId, waiter) != null) {
            slots.release();
            throw new IllegalStateException("Already waiting for execution " + executionId);
        }
        waiter.whenComplete((snapshot, failure) -> {
            byExecution.remove(executionId, waiter);
            slots.release();
        });
        waiter.completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
        return waiter;
    }

    /**
     * Takes a place for a follower's stream until it closes, and keeps {@code follower} under {@code executionId} in
     * {@code followers} meanwhile; false when no place is left (the client is told so, and closed).
     */
    <F> boolean follow(ConcurrentMap<String, Set<F>> followers, String executionId, F follower, SseClient client) {
        if (!slots.tryAcquire()) {
            client.sendEvent("error", "Too many requests are waiting or following (max-wait-requests); retry later");
            client.close();
            return false;
        }
        client.onClose(() -> {
            followers.computeIfPresent(executionId, (id, all) -> {
                all.remove(follower);
                return all.isEmpty() ? null : all;
            });
            slots.release();
        });
        followers.computeIfAbsent(executionId, id -> ConcurrentHashMap.newKeySet()).add(follower);
        client.keepAlive();
        return true;
    }

    /**
     * Every new snapshot of the executions topic, as encoded there; only terminal ones release a waiter. Only the
     * snapshots of awaited executions are decoded.
     */
    void onSnapshot(String key, byte[] encoded) {
        String executionId = key;
        if (SnapshotKeys.isRun(key) || !byExecution.containsKey(executionId)) {
            return;
        }
        ExecutionSnapshot snapshot = Topics.SNAPSHOT_SERDE.decode(encoded);
        if (!ExecutionMapper.fromRecord(snapshot.getExecution().getState()).isTerminal()) {
            return;
        }
        CompletableFuture<ExecutionSnapshot> waiter = byExecution.remove(executionId);
        if (waiter != null) {
            waiter.complete(snapshot);
        }
    }

    /** Releases everyone waiting, e.g. because the gateway stops. */
    void failAll(RuntimeException reason) {
        byExecution.values().forEach(w -> w.completeExceptionally(reason));
    }

    int size() {
        return byExecution.size();
    }
}
