package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.CreateExecution;
import io.millrace.core.command.ReplaySeed;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A replay's start keeps what it keeps of the replayed execution through the commands serde. */
class ReplayRecordsTest {
    private static final Instant AT = Instant.parse("2026-11-27T13:00:00Z");

    @Test
    void shouldKeepTheSeedOfAReplayThroughTheCommandsSerde() {
        var seed = new ReplaySeed("e1", "run-3", List.of(
                new ReplaySeed.SeedRun("run-1", "first", null, null, null, State.SUCCESS, Map.of("value", "one"), null,
                        AT.minusSeconds(9), AT.minusSeconds(8)),
                new ReplaySeed.SeedRun("run-2", "each", null, null, null, State.CREATED, Map.of(), null,
                        AT.minusSeconds(8), null),
                new ReplaySeed.SeedRun("run-4", "item", "run-2", "a", 0, State.FAILED, Map.of(), "boom",
                        AT.minusSeconds(7), AT.minusSeconds(6))));
        var command = new CreateExecution("e2", "ns", "f", 3, Map.of("n", 1), Map.of("team", "a"), AT, null,
                new Lineage("e1", 2), seed);

        var bytes = Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command));

        assertThat(CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).isEqualTo(command);
    }

    @Test
    void shouldReadAStartWithoutASeed() {
        var command = new CreateExecution("e2", "ns", "f", null, Map.of(), Map.of(), AT);

        var bytes = Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(command));

        assertThat(((CreateExecution) CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).replay()).isNull();
    }
}
