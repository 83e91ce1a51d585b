package io.millrace.serdes;

import io.millrace.core.flow.Flow;
import io.millrace.core.flow.FlowParser;
import io.millrace.core.flow.FlowValidationException;
import io.millrace.serdes.avro.FlowRecord;
import java.time.Instant;

/** Flow revisions on the flows topic: keys and records. */
public final class FlowMapper {
    private static final FlowParser PARSER = new FlowParser();

    private FlowMapper() {
    }

    /** {@code namespace/id@00000007}: revisions of one flow sort together, in order. */
    public static String key(String namespace, String id, int revision) {
        String digits = Integer.toString(revision);
        return Flow.key(namespace, id) + "@" + (digits.length() >= 8 ? digits : "0".repeat(8 - digits.length()) + digits);
    }

    /** The first key of a flow's revisions, for range scans. */
    public static String firstKey(String namespace, String id) {
        return Flow.key(namespace, id) + "@";
    }

    /** The key just past a flow's last revision, for range scans. */
    public static String lastKey(String namespace, String id) {
        return Flow.key(namespace, id) + "@99999999";
    }

    public static FlowRecord toRecord(Flow flow, Instant createdAt) {
        return new FlowRecord(flow.namespace(), flow.id(), flow.revision(), flow.source(), createdAt, false);
    }

    /** The revision after {@code latest} that deletes the flow. */
    public static FlowRecord deletion(FlowRecord latest, Instant at) {
        return new FlowRecord(latest.getNamespace(), latest.getId(), latest.getRevision() + 1, latest.getSource(), at, true);
    }

    /**
     * Re-parses a stored revision; a record that no longer parses is a bug or a corrupted topic. A deleting revision
     * reads as the flow disabled: nothing starts it any more, and its triggers stop.
     */
    public static Flow fromRecord(FlowRecord record) {
        try {
            Flow flow = PARSER.parse(record.getSource()).withRevision(record.getRevision());
            return record.getDeleted() ? flow.withDisabled() : flow;
        } catch (FlowValidationException e) {
            throw new IllegalStateException("Stored flow " + record.getNamespace() + "/" + record.getId()
                    + " revision " + record.getRevision() + " no longer parses: " + e.getMessage(), e);
        }
    }
}
