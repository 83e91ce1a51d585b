package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Stored executions name their task runs with these ids: a new build must derive the very same ones. */
class TaskRunIdsTest {

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
            "e1, t1, null, null",
            "bench59d0f41a-13, log, null, null",
            "e1, each, parentRunId, 'value with ünïcode'",
    })
    void shouldNameARunWithTheNameBasedUuidOfItsIdentity(String executionId, String taskId, String parent, String value) {
        // given
        String identity = executionId + '\u0000' + taskId + '\u0000' + parent + '\u0000' + value;
        UUID uuid = UUID.nameUUIDFromBytes(identity.getBytes(StandardCharsets.UTF_8));
        byte[] expected = ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).array();

        // when
        String id = TaskRunIds.of(executionId, taskId, parent, value, null);

        // then
        assertThat(id).isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(expected));
    }

    @ParameterizedTest
    @CsvSource({"t1, t2", "t1, T1"})
    void shouldNameDifferentRunsDifferently(String oneTask, String otherTask) {
        assertThat(TaskRunIds.of("e1", oneTask, null, null, null)).isNotEqualTo(TaskRunIds.of("e1", otherTask, null, null, null));
    }

    @Test
    void shouldNameTwoIterationsOverEqualValuesApart() {
        assertThat(TaskRunIds.of("e1", "t", "p", "a", 0)).isNotEqualTo(TaskRunIds.of("e1", "t", "p", "a", 1));
    }
}
