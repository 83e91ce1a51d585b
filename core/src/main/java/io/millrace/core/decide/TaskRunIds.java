package io.millrace.core.decide;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Task run ids are derived from what the run is (execution, task, parent run, loop value and iteration), so
 * deciding the same thing twice names the same run: the 16 bytes of a name-based (version 3) UUID of
 * that identity, in URL-safe Base64.
 */
final class TaskRunIds {
    /** Looking up a digest costs more than the hash of a short name: keep one per thread. */
    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has MD5", e);
        }
    });

    private TaskRunIds() {
    }

    /** The execution a Subflow run's attempt starts: the same id every time it is decided, so it starts once. */
    static String childExecution(String executionId, String taskRunId, int attempt) {
        return of(executionId, "\u0001subflow", taskRunId, null, attempt);
    }

    static String of(String executionId, String taskId, String parentTaskRunId, String value, Integer iteration) {
        String identity = executionId + '\u0000' + taskId + '\u0000' + parentTaskRunId + '\u0000' + value
                + (iteration == null ? "" : "\u0000" + iteration);
        byte[] bytes = MD5.get().digest(identity.getBytes(StandardCharsets.UTF_8));
        bytes[6] = (byte) ((bytes[6] & 0x0f) | 0x30); // version 3
        bytes[8] = (byte) ((bytes[8] & 0x3f) | 0x80); // IETF variant
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
