package io.millrace.serdes;

/**
 * Keys of the executions topic: an execution's own snapshot is keyed by its id, each of its task runs by
 * {@code <execution id>/<seq>}, seq the run's creation index in 8 hex digits, so a key-ordered scan of one
 * execution's runs reads them in creation order. Execution ids never contain '/'. Both kinds are partitioned by the
 * execution id, so one execution's records keep their order.
 */
public final class SnapshotKeys {
    private static final char SEPARATOR = '/';
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private SnapshotKeys() {
    }

    public static String run(String executionId, int seq) {
        char[] key = new char[executionId.length() + 9];
        executionId.getChars(0, executionId.length(), key, 0);
        key[executionId.length()] = SEPARATOR;
        for (int i = 0; i < 8; i++) {
            key[key.length - 1 - i] = HEX[(seq >>> (4 * i)) & 0xf];
        }
        return new String(key);
    }

    /** The first key a scan of one execution's runs starts at. */
    public static String runsFrom(String executionId) {
        return executionId + SEPARATOR;
    }

    /** The key past the last of one execution's runs. */
    public static String runsTo(String executionId) {
        return executionId + (char) (SEPARATOR + 1);
    }

    public static boolean isRun(String key) {
        return key.indexOf(SEPARATOR) >= 0;
    }

    /** The execution a key belongs to. */
    public static String executionId(String key) {
        int at = key.indexOf(SEPARATOR);
        return at < 0 ? key : key.substring(0, at);
    }
}
