package io.millrace.triggers;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Execution ids derived from what started them, so the same event gives the same id however often it is read (a
 * restart, a rebalance, two instances): the executor's create of an id it has already seen is a duplicate it ignores,
 * which makes a trigger's at-least-once reading start each execution once. 22 characters, like the gateway's ids.
 */
public final class TriggerIds {
    private TriggerIds() {
    }

    /** The execution id of a Kafka trigger's record (so a benchmark can match a record with its execution). */
    public static String ofRecord(String namespace, String flowId, String triggerId, String topic, int partition,
            long offset, long timestamp) {
        return of("kafka", namespace, flowId, triggerId, topic, Integer.toString(partition), Long.toString(offset),
                Long.toString(timestamp));
    }

    static String of(String... parts) {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                // the length first, so that no two lists of parts read the same
                digest.update(new byte[] {(byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
                        (byte) (bytes.length >>> 8), (byte) bytes.length});
                digest.update(bytes);
            }
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest.digest()).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Expected SHA-256 to be available", e);
        }
    }
}
