package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.KillExecution;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A kill keeps whether it reaches the subflows through the commands serde. */
class KillRecordsTest {
    private static final Instant AT = Instant.parse("2026-11-27T13:00:00Z");

    @Test
    void shouldKeepWhetherAKillCascades() {
        for (boolean cascade : new boolean[] {true, false}) {
            var kill = new KillExecution("e1", AT, cascade);
            var bytes = Topics.COMMAND_SERDE.encode(CommandMapper.toRecord(kill));
            assertThat(CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).isEqualTo(kill);
        }
    }
}
