package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Command;
import io.millrace.core.command.PauseExecution;
import io.millrace.core.command.ResumeExecution;
import io.millrace.core.event.Event;
import io.millrace.core.event.TaskRunPaused;
import io.millrace.core.event.TaskRunResumed;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pause and resume commands and events keep every field through their Avro form and bytes. */
class PauseRecordsTest {
    private static final Instant AT = Instant.parse("2026-11-27T08:00:00Z");

    @Test
    void shouldKeepPauseAndResumeCommandsThroughTheCommandsSerde() {
        for (Command command : List.of(new PauseExecution("e1", AT),
                new ResumeExecution("e1", "run-1", Map.of("approved", true, "reason", "ok"), AT),
                new ResumeExecution("e2", null, Map.of(), AT))) {
            var bytes = Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command));
            assertThat(CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).isEqualTo(command);
        }
    }

    @Test
    void shouldKeepPausedAndResumedEventsThroughTheEventsSerde() {
        for (Event event : List.<Event>of(new TaskRunPaused("run-1", AT),
                new TaskRunResumed("run-1", Map.of("onResume", Map.of("approved", true)), AT))) {
            var bytes = Topics.EVENT_SERDE.encode(EventMapper.toRecord("e1", List.of(event)));
            assertThat(EventMapper.fromRecord(Topics.EVENT_SERDE.decode(bytes))).containsExactly(event);
        }
    }
}
