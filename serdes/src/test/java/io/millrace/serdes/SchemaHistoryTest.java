package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.serdes.avro.CommandRecord;
import io.millrace.serdes.avro.DeadLetterRecord;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.FlowRecord;
import io.millrace.serdes.avro.LogRecord;
import io.millrace.serdes.avro.OutputsRecord;
import io.millrace.serdes.avro.StoredExecution;
import io.millrace.serdes.avro.StoredTaskRun;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.TaskRunSnapshot;
import io.millrace.serdes.avro.TimerRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

/**
 * Keeps schema changes safe: every record schema on a topic or in a store is pinned by its fingerprint, so a change
 * fails here until its previous version joins {@code avro-history} (listed in its index.txt, which readers load) and
 * the new fingerprint is pinned; and every version in the history must stay readable by the current schema.
 */
class SchemaHistoryTest {

    /** The current schemas' fingerprints (CRC-64-AVRO of the parsing canonical form, in hex). */
    private static final Map<String, String> PINNED = Map.ofEntries(
            Map.entry("CommandRecord", "b98f60f053333754"),
            Map.entry("DeadLetterRecord", "b70ac138e0ff4119"),
            Map.entry("EventRecord", "66069f82c1bc563e"),
            Map.entry("ExecutionRecord", "2a09b867e3083339"),
            Map.entry("ExecutionSnapshot", "606c99a73d399f28"),
            Map.entry("FlowRecord", "6011c905a8f76a14"),
            Map.entry("LogRecord", "eeb138d409ca54b7"),
            Map.entry("OutputsRecord", "ec0943a15bc55bc7"),
            Map.entry("StoredExecution", "24a2d52bfedc20fc"),
            Map.entry("StoredTaskRun", "873e336367e0d537"),
            Map.entry("TaskResultRecord", "896a891ee12d37d0"),
            Map.entry("TaskRunSnapshot", "1ab56d42d7b5a414"),
            Map.entry("TimerRecord", "4d99626a42edfacf"),
            Map.entry("WorkerTaskRecord", "6ff75f854710acbf"));

    private static final List<Schema> CURRENT = List.of(CommandRecord.getClassSchema(), DeadLetterRecord.getClassSchema(),
            EventRecord.getClassSchema(), ExecutionRecord.getClassSchema(), ExecutionSnapshot.getClassSchema(),
            FlowRecord.getClassSchema(), LogRecord.getClassSchema(), OutputsRecord.getClassSchema(), StoredExecution.getClassSchema(),
            StoredTaskRun.getClassSchema(), TaskResultRecord.getClassSchema(),
            TaskRunSnapshot.getClassSchema(),
            TimerRecord.getClassSchema(), WorkerTaskRecord.getClassSchema());

    @Test
    void shouldPinEveryCurrentSchema() {
        // given
        var actual = new LinkedHashMap<String, String>();
        CURRENT.forEach(s -> actual.put(s.getName(), Long.toHexString(SchemaNormalization.parsingFingerprint64(s))));

        // then
        assertThat(actual)
                .as("A schema changed. Add its previous version to serdes/src/main/resources/avro-history (as "
                        + "<Name>-v<N>.avsc, listed in index.txt) so records written before the change still decode, then "
                        + "pin the new fingerprint here. Fingerprints now: %s", actual)
                .containsExactlyInAnyOrderEntriesOf(PINNED);
    }

    @Test
    void shouldReadEveryEarlierVersionWithTheCurrentSchema() throws IOException {
        // given
        var byName = new LinkedHashMap<String, Schema>();
        CURRENT.forEach(s -> byName.put(s.getName(), s));

        // when
        List<String> history = history();

        // then
        assertThat(history).isNotEmpty();
        for (String file : history) {
            Schema old;
            try (InputStream in = getClass().getResourceAsStream("/avro-history/" + file)) {
                old = new Schema.Parser().parse(in);
            }
            Schema current = byName.get(old.getName());
            assertThat(current).as("%s: no current schema named %s", file, old.getName()).isNotNull();
            var compatibility = SchemaCompatibility.checkReaderWriterCompatibility(current, old);
            assertThat(compatibility.getType()).as("%s read by the current %s: %s", file, old.getName(),
                    compatibility.getDescription()).isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        }
    }

    private static List<String> history() throws IOException {
        try (InputStream in = SchemaHistoryTest.class.getResourceAsStream("/avro-history/index.txt")) {
            var files = new ArrayList<String>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\\R")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    files.add(line.trim());
                }
            }
            return files;
        }
    }
}
