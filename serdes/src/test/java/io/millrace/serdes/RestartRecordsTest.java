package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.RestartExecution;
import io.millrace.core.event.ExecutionRestarted;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The restart command and event keep every field through their Avro form and bytes; every state has its symbol. */
class RestartRecordsTest {
    private static final Instant AT = Instant.parse("2026-11-27T10:00:00Z");

    @Test
    void shouldKeepTheRestartCommandThroughTheCommandsSerde() {
        var command = new RestartExecution("e1", AT);
        var bytes = Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command));
        assertThat(CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).isEqualTo(command);
    }

    @Test
    void shouldKeepTheRestartedEventThroughTheEventsSerde() {
        var event = new ExecutionRestarted(AT);
        var bytes = Topics.EVENT_SERDE.encode(EventMapper.toRecord("e1", List.of(event)));
        assertThat(EventMapper.fromRecord(Topics.EVENT_SERDE.decode(bytes))).containsExactly(event);
    }

    @Test
    void shouldMapEveryStateToItsSymbolAndBack() {
        for (State state : State.values()) {
            assertThat(ExecutionMapper.fromRecord(ExecutionMapper.toRecord(state))).isEqualTo(state);
        }
    }
}
