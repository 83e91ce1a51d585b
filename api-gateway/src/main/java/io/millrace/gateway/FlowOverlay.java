package io.millrace.gateway;

import io.millrace.core.flow.Flow;
import io.millrace.serdes.avro.FlowRecord;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * Flow revisions this gateway produced that the global flows store may not have read yet, so that an
 * execution started right after a deploy is accepted. An entry lives only until the store has caught
 * up with it: the flows processor and every lookup drop it then.
 */
final class FlowOverlay {
    private final ConcurrentMap<String, FlowRecord> byFlow = new ConcurrentHashMap<>();

    void remember(FlowRecord produced) {
        byFlow.merge(key(produced), produced, (mine, next) -> next.getRevision() >= mine.getRevision() ? next : mine);
    }

    /** A revision reached the store: older or equal revisions of ours are no longer needed. */
    void caughtUp(FlowRecord stored) {
        byFlow.computeIfPresent(key(stored), (k, mine) -> mine.getRevision() <= stored.getRevision() ? null : mine);
    }

    /**
     * The newer of the stored latest revision and ours. Ours is read before the store: the flows processor drops an
     * entry only after storing its revision, so an entry gone by then is in the store read next; reading the store
     * first could miss both (the store read before the processor stored it, ours dropped right after).
     */
    Optional<FlowRecord> latest(String namespace, String id, Supplier<Optional<FlowRecord>> store) {
        FlowRecord mine = byFlow.get(Flow.key(namespace, id));
        Optional<FlowRecord> stored = store.get();
        stored.ifPresent(this::caughtUp);
        if (mine == null) {
            return stored;
        }
        return stored.filter(s -> s.getRevision() >= mine.getRevision()).or(() -> Optional.of(mine));
    }

    int size() {
        return byFlow.size();
    }

    private static String key(FlowRecord flow) {
        return Flow.key(flow.getNamespace(), flow.getId());
    }
}
