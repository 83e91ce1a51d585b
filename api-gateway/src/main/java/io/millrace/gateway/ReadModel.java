package io.millrace.gateway;

import io.millrace.config.MillraceConfig;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.SnapshotKeys;
import java.util.ArrayList;
import java.util.List;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.serdes.RecoveringStreams;
import io.millrace.serdes.RecoveryPolicy;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The running read model (see {@link ReadModelTopology}): one per gateway process, shared by every
 * HTTP request. Lookups before it is RUNNING, or while it recovers from a failure, answer 503. It recovers by itself
 * ({@link RecoveringStreams}): local state that no longer matches the topics (from another cluster, or older than their
 * retention) is wiped and read again from the topics.
 */
final class ReadModel implements AutoCloseable {
    private final RecoveringStreams streams;

    private ReadModel(RecoveringStreams streams) {
        this.streams = streams;
    }

    /** @param onExecution told the execution id and encoded snapshot of every snapshot read, on the global thread */
    static ReadModel start(MillraceConfig config, Consumer<FlowRecord> onFlow, BiConsumer<String, byte[]> onExecution,
            MeterRegistry registry) {
        Topics topics = Topics.of(config);
        return new ReadModel(RecoveringStreams.start("gateway",
                () -> ReadModelTopology.build(topics, onFlow, onExecution), ReadModelTopology.properties(config),
                RecoveryPolicy.DEFAULT, registry));
    }

    boolean running() {
        return streams.running();
    }

    /** Starting, running or recovering from a failure: not stopped. */
    boolean alive() {
        return streams.alive();
    }

    /** What {@code /health} says when it is not running. */
    String state() {
        return streams.recovering() ? "recovering from a failure" : streams.state().toString();
    }

    boolean awaitRunning(Duration timeout) throws InterruptedException {
        return streams.awaitRunning(timeout);
    }

    /** The highest stored revision of a flow. */
    Optional<FlowRecord> latestFlow(String namespace, String id) {
        return query(() -> {
            try (KeyValueIterator<String, FlowRecord> revisions = this.<FlowRecord>store(ReadModelTopology.FLOWS_STORE)
                    .reverseRange(FlowMapper.firstKey(namespace, id), FlowMapper.lastKey(namespace, id))) {
                return revisions.hasNext() ? Optional.of(revisions.next().value) : Optional.empty();
            }
        });
    }

    /** An execution's snapshot and those of its task runs, in creation order (empty when they travel inline). */
    record Snapshot(ExecutionSnapshot execution, List<TaskRunSnapshot> runs) {
    }

    Optional<Snapshot> execution(String executionId) {
        return query(() -> {
            ReadOnlyKeyValueStore<String, byte[]> store = store(ReadModelTopology.EXECUTIONS_STORE);
            byte[] header = store.get(executionId);
            if (header == null) {
                return Optional.empty();
            }
            ExecutionSnapshot execution = Topics.SNAPSHOT_SERDE.decode(header);
            var runs = new ArrayList<TaskRunSnapshot>();
            if (execution.getTaskRunCount() != null) {
                try (KeyValueIterator<String, byte[]> stored = store.range(SnapshotKeys.runsFrom(executionId),
                        SnapshotKeys.runsTo(executionId))) {
                    stored.forEachRemaining(kv -> runs.add(Topics.RUN_SNAPSHOT_SERDE.decode(kv.value)));
                }
            }
            return Optional.of(new Snapshot(execution, runs));
        });
    }

    /** A page of the executions a search finds (newest first unless it asks otherwise), and how many it finds. */
    record Found(List<Snapshot> page, int total) {
    }

    Found search(ExecutionSearch search) {
        return query(() -> {
            ReadOnlyKeyValueStore<String, byte[]> store = store(ReadModelTopology.EXECUTIONS_STORE);
            var ids = new ArrayList<String>();
            ExecutionIndex.scan(store, search.prefix(), summary -> {
                if (search.matches(summary)) {
                    ids.add(summary.id());
                }
                return true;
            });
            if (search.ascending()) {
                java.util.Collections.reverse(ids);
            }
            int from = (int) Math.min((long) (search.page() - 1) * search.size(), ids.size());
            var page = new ArrayList<Snapshot>();
            for (String id : ids.subList(from, Math.min(from + search.size(), ids.size()))) {
                execution(id).ifPresent(page::add);
            }
            return new Found(page, ids.size());
        });
    }

    /** An execution's log lines, in the order they were sent. */
    List<LogRecord> logs(String executionId) {
        return query(() -> {
            var lines = new ArrayList<LogRecord>();
            try (KeyValueIterator<String, byte[]> stored = this.<byte[]>store(ReadModelTopology.LOGS_STORE)
                    .range(ReadModelTopology.logsFrom(executionId), ReadModelTopology.logsTo(executionId))) {
                stored.forEachRemaining(kv -> lines.add(Topics.LOG_SERDE.decode(kv.value)));
            }
            return lines;
        });
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
    }

    /** Stores cannot be queried while the read model starts, restores or after it stopped. */
    private <T> T query(Supplier<T> lookup) {
        try {
            return lookup.get();
        } catch (InvalidStateStoreException e) {
            throw ApiException.unavailable("The gateway's read model is not ready (" + state() + "); retry shortly");
        }
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(10));
    }
}
