package io.millrace.core.decide;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

/**
 * Task run ids are derived from what the run is (execution, task, parent run, loop value), so
 * deciding the same thing twice names the same run.
 */
final class TaskRunIds {
    private TaskRunIds() {
    }

    static String of(String executionId, String taskId, String parentTaskRunId, String value) {
        String identity = executionId + '\u0000' + taskId + '\u0000' + parentTaskRunId + '\u0000' + value;
        UUID uuid = UUID.nameUUIDFromBytes(identity.getBytes(StandardCharsets.UTF_8));
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}
