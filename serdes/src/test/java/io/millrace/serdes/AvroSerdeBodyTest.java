package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.StoredExecution;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A record encoded around the body of its first field, encoded before, has the bytes of the plain encoding. */
class AvroSerdeBodyTest {
    private static final Instant AT = Instant.ofEpochMilli(1_700_000_000_000L);
    private static final AvroSerde<ExecutionRecord> EXECUTION = new AvroSerde<>(ExecutionRecord.getClassSchema());
    private static final AvroSerde<StoredExecution> STORED = new AvroSerde<>(StoredExecution.getClassSchema());

    @Test
    void shouldEncodeASnapshotAroundItsExecutionsBodyAsAWhole() {
        // given: unions set and unset, maps, logical types
        ExecutionRecord execution = ExecutionMapper.toRecord(execution());
        byte[] body = EXECUTION.body(execution);

        for (var snapshot : List.of(new ExecutionSnapshot(execution, Map.of("r1", "{\"a\":1}"), AT, null),
                new ExecutionSnapshot(execution, Map.of(), AT.plusMillis(5), 17))) {
            // when
            byte[] around = Topics.SNAPSHOT_SERDE.encode(snapshot, execution, body);

            // then
            assertThat(around).isEqualTo(Topics.SNAPSHOT_SERDE.encode(snapshot));
            ExecutionSnapshot read = Topics.SNAPSHOT_SERDE.decode(around);
            assertThat(ExecutionMapper.fromRecord(read.getExecution())).isEqualTo(execution());
            assertThat(read.getTaskRunCount()).isEqualTo(snapshot.getTaskRunCount());
        }
    }

    @Test
    void shouldEncodeAStoredExecutionAroundItsExecutionsBodyAsAWhole() {
        // given
        ExecutionRecord execution = ExecutionMapper.toRecord(execution());
        byte[] body = EXECUTION.body(execution);

        for (var stored : List.of(new StoredExecution(execution, null, 42L, Map.of("r1", "{}")),
                new StoredExecution(execution, 20, Long.MAX_VALUE, null))) {
            // when
            byte[] around = STORED.encode(stored, execution, body);

            // then
            assertThat(around).isEqualTo(STORED.encode(stored));
            StoredExecution read = STORED.decode(around);
            assertThat(ExecutionMapper.fromRecord(read.getExecution())).isEqualTo(execution());
            assertThat(read.getVersion()).isEqualTo(stored.getVersion());
        }
    }

    @Test
    void shouldEncodeAsUsualWhenTheBodyIsOfAnotherRecord() {
        // given: a body made before the execution was copied (slimmed)
        ExecutionRecord execution = ExecutionMapper.toRecord(execution());
        byte[] body = EXECUTION.body(execution);
        var copy = ExecutionRecord.newBuilder(execution).setError("other").build();
        var snapshot = new ExecutionSnapshot(copy, Map.of(), AT, null);

        // when
        byte[] encoded = Topics.SNAPSHOT_SERDE.encode(snapshot, execution, body);

        // then
        assertThat(Topics.SNAPSHOT_SERDE.decode(encoded).getExecution().getError()).isEqualTo("other");
    }

    private static Execution execution() {
        var attempt = new Attempt(1, State.SUCCESS, List.of(new StateHistory(State.RUNNING, AT),
                new StateHistory(State.SUCCESS, AT.plusMillis(9))), AT.plusSeconds(30), null, false,
                new WorkerTimes(AT.plusMillis(1), AT.plusMillis(2), AT.plusMillis(8)));
        var run = new TaskRun("r1", "t1", null, "v", 2, State.SUCCESS, List.of(new StateHistory(State.CREATED, AT),
                new StateHistory(State.SUCCESS, AT.plusMillis(9))), List.of(attempt), null);
        return new Execution("e1", "ns", "f", 3, Map.of("in", List.of(1, "two")), Map.of("team", "a"),
                new ExecutionTrigger("t", "io.kestra.plugin.core.trigger.Schedule", Map.of("date", "2026-01-01")),
                State.SUCCESS, List.of(new StateHistory(State.CREATED, AT), new StateHistory(State.SUCCESS,
                AT.plusMillis(9))), TaskRuns.of(List.of(run)), Map.of("o", 1), null, Lineage.FIRST, AT.minusMillis(3));
    }
}
