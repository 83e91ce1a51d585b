package io.millrace.topology;

import io.millrace.core.cache.LruCache;
import io.millrace.core.decide.FlowSource;
import io.millrace.core.flow.Flow;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.avro.FlowRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Finds flow revisions in the global flows store and keeps the parsed flows of recent revisions,
 * so the hot path does not re-parse YAML; the decider's source of other flows (a subflow's child, a child's parent).
 * One per stream task: not shared between threads.
 */
final class FlowLookup implements FlowSource {
    private static final int CACHED_REVISIONS = 1_000;

    private final LruCache<String, Flow> parsed = new LruCache<>(CACHED_REVISIONS);
    private ReadOnlyKeyValueStore<String, FlowRecord> store;

    /** Reads {@code store} from now on: the processor's store, known once it is initialized. */
    void bind(ReadOnlyKeyValueStore<String, FlowRecord> store) {
        this.store = store;
    }

    /** The flow at {@code revision}, or at its latest revision when {@code revision} is null; null if absent. */
    @Override
    public Flow find(String namespace, String id, Integer revision) {
        if (revision != null) {
            return parsed.computeIfAbsent(FlowMapper.key(namespace, id, revision), key -> {
                FlowRecord record = store.get(key);
                return record == null ? null : FlowMapper.fromRecord(record);
            });
        }
        try (KeyValueIterator<String, FlowRecord> latest =
                     store.reverseRange(FlowMapper.firstKey(namespace, id), FlowMapper.lastKey(namespace, id))) {
            if (!latest.hasNext()) {
                return null;
            }
            KeyValue<String, FlowRecord> entry = latest.next();
            return parsed.computeIfAbsent(entry.key, key -> FlowMapper.fromRecord(entry.value));
        }
    }

    /** The flow at the revision the execution runs, or null when there is no execution or no such flow. */
    Flow ofExecution(StoreBackedState state) {
        return state.execution()
                .map(e -> find(e.namespace(), e.flowId(), e.flowRevision()))
                .orElse(null);
    }
}
