package io.millrace.gateway;

import io.millrace.config.MillraceConfig;
import io.millrace.core.cache.LruCache;
import io.millrace.core.flow.Flow;
import io.millrace.serdes.AvroSerde;
import io.millrace.serdes.FlowMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.SnapshotKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.serdes.RecoveringStreams;
import io.millrace.serdes.RecoveryPolicy;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
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
final class ReadModel implements FlowService.StoredFlows, AutoCloseable {
    /** Flows whose latest revision is kept in memory at most: a start of a kept one reads no store. */
    static final int LATEST_FLOWS_KEPT = 1_024;

    private final RecoveringStreams streams;
    private final Undecodable undecodable;
    /** Writes to the flows store so far: a latest revision kept is good while none came since it was read. */
    private final AtomicLong flowWrites;
    private final LruCache<String, Latest> latestFlows = new LruCache<>(LATEST_FLOWS_KEPT);

    /** A flow's latest revision, as read after {@code flowWrites} writes from the client of {@code launch}. */
    private record Latest(FlowRecord flow, long flowWrites, int launch) {
    }

    private ReadModel(RecoveringStreams streams, Undecodable undecodable, AtomicLong flowWrites) {
        this.streams = streams;
        this.undecodable = undecodable;
        this.flowWrites = flowWrites;
    }

    /**
     * @param onExecution told the execution id and encoded snapshot of every snapshot read, on the global thread
     * @param onLog told the key of every log line stored, on the global thread
     */
    static ReadModel start(MillraceConfig config, Consumer<FlowRecord> onFlow, BiConsumer<String, byte[]> onExecution,
            Consumer<String> onLog, MeterRegistry registry) {
        Topics topics = Topics.of(config);
        var undecodable = new Undecodable(registry);
        var flowWrites = new AtomicLong();
        return new ReadModel(RecoveringStreams.start("gateway",
                () -> ReadModelTopology.build(topics, flowWrites::incrementAndGet, onFlow, onExecution, onLog,
                        undecodable),
                ReadModelTopology.properties(config), RecoveryPolicy.DEFAULT, registry), undecodable, flowWrites);
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

    /** One stored revision of a flow; none when it is not stored or does not decode (counted). */
    @Override
    public Optional<FlowRecord> flowRevision(String namespace, String id, int revision) {
        return query(() -> {
            try {
                return Optional.ofNullable(this.<FlowRecord>store(ReadModelTopology.FLOWS_STORE)
                        .get(FlowMapper.key(namespace, id, revision)));
            } catch (SerializationException e) {
                undecodable.skipped(Undecodable.Kind.FLOWS, namespace + "/" + id, e);
                return Optional.empty();
            }
        });
    }

    /**
     * The highest stored revision of a flow; none when it does not decode (counted). Kept in memory while no write
     * reached the flows store since it was read (deploys are rare, starts are not): the flows processor counts its
     * writes before it tells the overlay, so a revision the overlay drops is never hidden by one kept from before.
     * Only what a running client read is kept: one restoring its store, after a recovery, writes without its processor.
     */
    @Override
    public Optional<FlowRecord> latestFlow(String namespace, String id) {
        String key = Flow.key(namespace, id);
        long writes = flowWrites.get();
        int launch = streams.launches();
        Latest kept = latestFlows.get(key);
        if (kept != null && kept.flowWrites() == writes && kept.launch() == launch) {
            return Optional.of(kept.flow());
        }
        boolean running = streams.running();
        Optional<FlowRecord> latest = flowRevisions(namespace, id, 1).stream().findFirst();
        if (running && latest.isPresent()) {
            latestFlows.put(key, new Latest(latest.get(), writes, launch));
        }
        return latest;
    }

    /**
     * The newest {@code limit} stored revisions of a flow, oldest first. A revision that does not decode is counted and
     * ends the list there: the older ones are left out.
     */
    @Override
    public List<FlowRecord> flowRevisions(String namespace, String id, int limit) {
        return query(() -> {
            var newestFirst = new ArrayList<FlowRecord>();
            try (KeyValueIterator<String, FlowRecord> revisions = this.<FlowRecord>store(ReadModelTopology.FLOWS_STORE)
                    .reverseRange(FlowMapper.firstKey(namespace, id), FlowMapper.lastKey(namespace, id))) {
                while (newestFirst.size() < limit && revisions.hasNext()) {
                    newestFirst.add(revisions.next().value);
                }
            } catch (SerializationException e) {
                undecodable.skipped(Undecodable.Kind.FLOWS, namespace + "/" + id + (newestFirst.isEmpty()
                        ? ", its newest revision" : ", the revision before " + newestFirst.getLast().getRevision()), e);
            }
            return newestFirst.reversed();
        });
    }

    /**
     * The latest revision of every flow in the store, deleted ones left out, in key order (namespace, then id). A
     * revision that does not decode is counted and ends the list there.
     */
    @Override
    public List<FlowRecord> latestFlows() {
        return query(() -> {
            var latest = new ArrayList<FlowRecord>();
            FlowRecord last = null;
            try (KeyValueIterator<String, FlowRecord> all = this.<FlowRecord>store(ReadModelTopology.FLOWS_STORE).all()) {
                while (all.hasNext()) {
                    FlowRecord flow = all.next().value;
                    if (last != null && !(last.getNamespace().equals(flow.getNamespace())
                            && last.getId().equals(flow.getId())) && !last.getDeleted()) {
                        latest.add(last);
                    }
                    last = flow;
                }
            } catch (SerializationException e) {
                undecodable.skipped(Undecodable.Kind.FLOWS, "a flow after " + (last == null ? "none" : Flow.key(
                        last.getNamespace(), last.getId())), e);
            }
            if (last != null && !last.getDeleted()) {
                latest.add(last);
            }
            return latest;
        });
    }

    /** An execution's snapshot and those of its task runs, in creation order (empty when they travel inline). */
    record Snapshot(ExecutionSnapshot execution, List<TaskRunSnapshot> runs) {
    }

    /** @throws ApiException 500 when its snapshot, or one of its runs', does not decode (counted) */
    Optional<Snapshot> execution(String executionId) {
        return query(() -> {
            try {
                return read(store(ReadModelTopology.EXECUTIONS_STORE), executionId);
            } catch (Unreadable e) {
                throw ApiException.internal("Execution '" + executionId + "' is stored in a form this gateway cannot"
                        + " read; the gateway's log names it");
            }
        });
    }

    /**
     * A page of the executions a search finds (newest first unless it asks otherwise), how many it finds, and how many
     * it would find in each state (every filter but the state's).
     */
    record Found(List<Snapshot> page, int total, Map<String, Integer> counts) {
    }

    /** An execution that does not decode is left out of its page (counted). */
    Found search(ExecutionSearch search) {
        return query(() -> {
            ReadOnlyKeyValueStore<String, byte[]> store = store(ReadModelTopology.EXECUTIONS_STORE);
            var ids = new ArrayList<String>();
            var counts = new TreeMap<String, Integer>();
            ExecutionIndex.scan(store, search.prefix(), search.from(), search.to(), summary -> {
                if (search.matchesButState(summary)) {
                    counts.merge(summary.state(), 1, Integer::sum);
                    if (search.matches(summary)) {
                        ids.add(summary.id());
                    }
                }
                return true;
            }, undecodable);
            if (search.ascending()) {
                java.util.Collections.reverse(ids);
            }
            int from = (int) Math.min((long) (search.page() - 1) * search.size(), ids.size());
            var page = new ArrayList<Snapshot>();
            for (String id : ids.subList(from, Math.min(from + search.size(), ids.size()))) {
                try {
                    read(store, id).ifPresent(page::add);
                } catch (Unreadable skipped) {
                    // counted and logged
                }
            }
            return new Found(page, ids.size(), counts);
        });
    }

    /** Feeds {@code stats} the index's executions, newest first, until it has what it needs. */
    ExecutionStats stats(ExecutionStats stats) {
        return query(() -> {
            ExecutionIndex.scan(store(ReadModelTopology.EXECUTIONS_STORE), ExecutionIndex.BY_TIME, stats::add, undecodable);
            return stats;
        });
    }

    /** An execution's log lines, in the order they were sent; a line that does not decode is left out (counted). */
    List<LogRecord> logs(String executionId) {
        return logsAfter(executionId, null).stream().map(Line::record).toList();
    }

    /** A log line under its key in the read model: its execution and offset. */
    record Line(String key, LogRecord record) {
    }

    /** As {@link #logs}, the lines stored after the line of key {@code after} (null: every line), with their keys. */
    List<Line> logsAfter(String executionId, String after) {
        return query(() -> {
            var lines = new ArrayList<Line>();
            try (KeyValueIterator<String, byte[]> stored = this.<byte[]>store(ReadModelTopology.LOGS_STORE)
                    .range(after == null ? ReadModelTopology.logsFrom(executionId) : after + '\u0000',
                            ReadModelTopology.logsTo(executionId))) {
                stored.forEachRemaining(kv -> {
                    try {
                        lines.add(new Line(kv.key, Topics.LOG_SERDE.decode(kv.value)));
                    } catch (SerializationException e) {
                        undecodable.skipped(Undecodable.Kind.LOGS, kv.key, e);
                    }
                });
            }
            return lines;
        });
    }

    /** An execution and its runs as stored. */
    private Optional<Snapshot> read(ReadOnlyKeyValueStore<String, byte[]> store, String executionId) {
        byte[] header = store.get(executionId);
        if (header == null) {
            return Optional.empty();
        }
        ExecutionSnapshot execution = decode(Undecodable.Kind.EXECUTIONS, executionId, header, Topics.SNAPSHOT_SERDE);
        var runs = new ArrayList<TaskRunSnapshot>();
        if (execution.getTaskRunCount() != null) {
            try (KeyValueIterator<String, byte[]> stored = store.range(SnapshotKeys.runsFrom(executionId),
                    SnapshotKeys.runsTo(executionId))) {
                stored.forEachRemaining(kv -> runs.add(decode(Undecodable.Kind.RUNS, kv.key, kv.value,
                        Topics.RUN_SNAPSHOT_SERDE)));
            }
        }
        return Optional.of(new Snapshot(execution, runs));
    }

    /** @throws Unreadable when it does not decode, counted and logged */
    private <T extends SpecificRecord> T decode(Undecodable.Kind kind, String key, byte[] bytes, AvroSerde<T> serde) {
        try {
            return serde.decode(bytes);
        } catch (SerializationException e) {
            undecodable.skipped(kind, key, e);
            throw new Unreadable();
        }
    }

    /** A stored record that did not decode, already counted: the execution it belongs to cannot be answered. */
    private static final class Unreadable extends RuntimeException {
        Unreadable() {
            super(null, null, false, false);
        }
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
