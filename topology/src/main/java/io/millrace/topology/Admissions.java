package io.millrace.topology;

import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.CommandRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The creates of one stream task that wait for a place to start ({@link Names#ADMISSIONS_STORE}), oldest first.
 *
 * <p>Key layout:
 * <pre>
 * q/&lt;the create's offset on the commands partition, 16 hex digits&gt;/&lt;execution id&gt;  →  the create, encoded
 * k/&lt;execution id&gt;  →  the offset of a kill read while creates waited, 16 hex digits (UTF-8)
 * </pre>
 * Offsets grow along a partition, so a range scan of {@code q/} reads the creates in the order they were read. A
 * create read again (a replay after a crash under at-least-once) has the same offset, so it takes the same key.
 *
 * <p>One key per waiting create, not two: every key written is a changelog record, and an index by execution id (for
 * kills) doubled what waiting cost, at a rate of twice what the executor can run. A kill of an execution that does not
 * exist yet leaves a {@code k/} marker instead; a create read before that kill is dead-lettered when its turn comes,
 * one read after it starts as usual. Markers go when nothing waits any more.
 *
 * <p>Taken keys are deleted, and RocksDB keeps a deleted key as a tombstone until compaction: a scan from the first
 * {@code q/} key would step over every create admitted since, so scans start at a cursor instead, below which every key
 * is gone or read ahead. The count is kept in memory, made again by one scan whenever the store may have changed under
 * it (a new or revived task): a count stored beside the creates would have to be right after every replay.
 *
 * <p>Creates are read ahead of their turn, up to {@link #READ_AHEAD} of them or {@link #READ_AHEAD_BYTES} at a time,
 * and stay in the store until {@link #done}: a range over a cached store (every store under exactly-once) first copies
 * every key of the range that the cache holds, so one scan per start, as executions end one by one, cost in proportion
 * to all that waits, and past the executor's ceiling the backlog slowed the starts that would drain it.
 */
final class Admissions {
    private static final String QUEUE = "q/";
    private static final String KILLED = "k/";
    /** After every {@code q/} (or {@code k/}) key. */
    private static final String QUEUE_END = QUEUE + "\uffff";
    private static final String KILLED_END = KILLED + "\uffff";
    private static final int OFFSET_END = QUEUE.length() + 16;
    private static final HexFormat HEX = HexFormat.of();

    /** The most creates one scan reads ahead of their turn. */
    static final int READ_AHEAD = 512;
    /** A scan stops reading ahead once the creates it read take this many bytes (a create may carry big inputs). */
    static final int READ_AHEAD_BYTES = 1 << 20;

    private final KeyValueStore<String, byte[]> store;
    /** Creates read from the store ahead of their turn, oldest first; every other waiting key is past the cursor. */
    private final ArrayDeque<KeyValue<String, byte[]>> ahead = new ArrayDeque<>();
    /** Every {@code q/} key before this one was taken or is {@link #ahead}. */
    private String cursor = QUEUE;
    private int size;
    /** The offset of the oldest waiting create; -1 when none waits. */
    private long oldest = -1;
    /** The offset of the oldest waiting create at or past the cursor; -1 when none is known to wait there. */
    private long oldestPast = -1;

    /** Counts what waits in the store, scanning it once. */
    Admissions(KeyValueStore<String, byte[]> store) {
        this.store = store;
        try (KeyValueIterator<String, byte[]> it = store.range(QUEUE, QUEUE_END)) {
            while (it.hasNext()) {
                String key = it.next().key;
                if (size++ == 0) {
                    cursor = key;
                    oldest = offsetOf(key);
                    oldestPast = oldest;
                }
            }
        }
    }

    /** How many creates wait. */
    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Where the oldest waiting create was read; -1 when none waits. */
    long oldestOffset() {
        return size == 0 ? -1 : oldest;
    }

    /**
     * Parks a create read at {@code offset}: it waits behind every create read before it. Each offset is read once in
     * the life of an instance (a replay starts a new one), so each park adds one.
     */
    void park(long offset, CommandRecord create) {
        String key = QUEUE + HEX.toHexDigits(offset) + "/" + create.getExecutionId();
        store.put(key, Topics.COMMAND_SERDE.encode(create));
        if (size++ == 0 || offset < oldest) {
            oldest = offset;
        }
        if (key.compareTo(cursor) < 0) {
            // before creates read ahead (offsets read out of order): they are in the store still, read them again
            cursor = ahead.isEmpty() || key.compareTo(ahead.getFirst().key) < 0 ? key : ahead.getFirst().key;
            ahead.clear();
            oldestPast = oldest;
        } else if (oldestPast < 0 || offset < oldestPast) {
            oldestPast = offset;
        }
    }

    /** Remembers a kill, read at {@code offset}, of an execution that may wait: its creates read before it never start. */
    void killed(String executionId, long offset) {
        store.put(KILLED + executionId, HEX.toHexDigits(offset).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The {@code n} oldest waiting creates, oldest first (fewer when fewer wait, or when those read ahead ran out: take
     * again); they leave the store at {@link #done}, once handled, so that a crash while they are handled (under
     * at-least-once the store's changelog is written through) finds them waiting again.
     */
    List<Waiting> take(int n) {
        if (ahead.isEmpty() && size > 0) {
            readAhead();
        }
        var waiting = new ArrayList<Waiting>(Math.min(n, ahead.size()));
        while (waiting.size() < n && !ahead.isEmpty()) {
            KeyValue<String, byte[]> entry = ahead.removeFirst();
            String executionId = entry.key.substring(OFFSET_END + 1);
            long offset = offsetOf(entry.key);
            waiting.add(new Waiting(entry.key, offset, executionId, entry.value, killedAfter(executionId, offset)));
        }
        size = Math.max(ahead.isEmpty() && oldestPast < 0 ? 0 : 1, size - waiting.size()); // should the count be off
        oldest = ahead.isEmpty() ? oldestPast : offsetOf(ahead.getFirst().key);
        return waiting;
    }

    /** Reads the next creates past the cursor, as many as {@link #READ_AHEAD} and {@link #READ_AHEAD_BYTES} allow. */
    private void readAhead() {
        long bytes = 0;
        try (KeyValueIterator<String, byte[]> it = store.range(cursor, QUEUE_END)) {
            while (ahead.size() < READ_AHEAD && bytes < READ_AHEAD_BYTES && it.hasNext()) {
                KeyValue<String, byte[]> entry = it.next();
                ahead.addLast(entry);
                bytes += entry.value.length;
                cursor = entry.key + "\0"; // the next key after it
            }
            oldestPast = it.hasNext() ? offsetOf(it.peekNextKey()) : -1;
        }
        if (oldestPast < 0) {
            size = ahead.size(); // all that waits is read: the count is exact again
        }
    }

    /** Removes creates {@link #take}n and handled; kill markers go too once nothing waits. */
    void done(List<Waiting> handled) {
        handled.forEach(waiting -> store.delete(waiting.key()));
        if (size == 0) {
            forgetKills();
        }
    }

    private static long offsetOf(String queueKey) {
        return HexFormat.fromHexDigitsToLong(queueKey, QUEUE.length(), OFFSET_END);
    }

    private boolean killedAfter(String executionId, long offset) {
        byte[] kill = store.get(KILLED + executionId);
        return kill != null && HexFormat.fromHexDigitsToLong(new String(kill, StandardCharsets.UTF_8)) > offset;
    }

    /** Nothing waits: a kill can concern no waiting create any more. */
    private void forgetKills() {
        var keys = new ArrayList<String>();
        try (KeyValueIterator<String, byte[]> it = store.range(KILLED, KILLED_END)) {
            it.forEachRemaining(entry -> keys.add(entry.key));
        }
        keys.forEach(store::delete);
    }

    /**
     * A create that waited: where it was read on its partition, its execution, its bytes, and whether a kill read after
     * it asked that it never start.
     */
    record Waiting(String key, long offset, String executionId, byte[] bytes, boolean killed) {
        /** The create; throws when its bytes do not decode. */
        CommandRecord create() {
            return Topics.COMMAND_SERDE.decode(bytes);
        }
    }
}
