package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.AcquireSlot;
import io.millrace.core.command.Command;
import io.millrace.core.command.ReleaseSlot;
import io.millrace.core.command.SlotAnswer;
import io.millrace.core.flow.Concurrency;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The concurrency slots' commands keep every field through their Avro form, keyed by the flow or the execution. */
class SlotRecordsTest {
    private static final Instant AT = Instant.parse("2026-11-27T11:00:00Z");

    @Test
    void shouldKeepSlotCommandsAndAnswersThroughTheCommandsSerdeUnderTheirKeys() {
        for (Command command : List.of(new AcquireSlot("company.team/limited", "e1", 2, Concurrency.Behavior.CANCEL, AT),
                new ReleaseSlot("company.team/limited", "e1", AT),
                new SlotAnswer("e1", "company.team/limited", SlotAnswer.Answer.GRANTED, null, AT),
                new SlotAnswer("e2", "company.team/limited", SlotAnswer.Answer.FAILED, "limit reached", AT))) {
            var record = CommandMapper.toRecord(command);
            assertThat(record.getExecutionId()).as("the record key").isEqualTo(command.key());
            var bytes = Topics.COMMAND_SERDE.encode(record);
            assertThat(CommandMapper.fromRecord(Topics.COMMAND_SERDE.decode(bytes))).isEqualTo(command);
        }
        assertThat(new AcquireSlot("company.team/limited", "e1", 2, Concurrency.Behavior.QUEUE, AT).key())
                .isEqualTo("company.team/limited");
    }
}
