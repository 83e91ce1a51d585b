package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.command.TaskResult;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCreated;
import io.millrace.core.event.ExecutionStateChanged;
import io.millrace.core.event.TaskRunCompleted;
import io.millrace.core.event.TaskRunRetrying;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.serdes.avro.EventRecord;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.TaskResultRecord;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {

    @Test
    void shouldReadARecordWrittenWithThePreviousSchemaVersion() throws Exception {
        // given: a result encoded by a version-1 writer, which had no workerId
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/TaskResultRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        GenericRecord old = new GenericData.Record(v1);
        old.put("executionId", "e1");
        old.put("taskRunId", "r1");
        old.put("attempt", 2);
        old.put("state", new GenericData.EnumSymbol(v1.getField("state").schema(), "SUCCESS"));
        old.put("outputsJson", "{\"value\":\"x\"}");
        old.put("error", null);
        old.put("at", 1_700_000_000_000L);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);

        // when
        TaskResultRecord current = Topics.RESULT_SERDE.deserializer().deserialize("t", toArray(bytes));

        // then
        assertThat(current.getExecutionId()).isEqualTo("e1");
        assertThat(current.getAttempt()).isEqualTo(2);
        assertThat(current.getState().name()).isEqualTo("SUCCESS");
        assertThat(current.getAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThat(current.getWorkerId()).isNull();
    }

    @Test
    void shouldReadAnEventWrittenBeforeExecutionPurgedExisted() throws Exception {
        // given: an event encoded by a version-1 writer, whose payload union had no ExecutionPurgedEvent
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/EventRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        Schema changed = v1.getField("payload").schema().getTypes().stream()
                .filter(t -> t.getName().equals("ExecutionStateChangedEvent")).findFirst().orElseThrow();
        GenericRecord payload = new GenericData.Record(changed);
        payload.put("state", new GenericData.EnumSymbol(changed.getField("state").schema(), "RUNNING"));
        GenericRecord old = new GenericData.Record(v1);
        old.put("executionId", "e1");
        old.put("at", 1_700_000_000_000L);
        old.put("payload", payload);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);

        // when
        EventRecord current = Topics.EVENT_SERDE.deserializer().deserialize("t", toArray(bytes));

        // then
        assertThat(EventMapper.fromRecord(current)).containsExactly(new ExecutionStateChanged(State.RUNNING,
                Instant.ofEpochMilli(1_700_000_000_000L)));
    }

    @Test
    void shouldReadAnExecutionStateStoredBeforeTaskRunsHadAnError() throws Exception {
        // given: a state with one failed task run, as a version-1 writer (no task-run error) encoded it
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/ExecutionRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        Execution execution = failedExecution();
        ExecutionRecord current = ExecutionMapper.toRecord(execution);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(asVersion(current, v1));

        // when
        ExecutionRecord read = new AvroSerde<ExecutionRecord>(ExecutionRecord.getClassSchema()).decode(toArray(bytes));

        // then: the same state, without the run's error
        execution.runs().update("r1", r -> r.withError(null));
        assertThat(ExecutionMapper.fromRecord(read)).isEqualTo(execution);
    }

    @Test
    void shouldReadAnExecutionStoredBeforeAttemptsHadWorkerTimes() throws Exception {
        // given: a state whose attempt has a worker's times and whose start a request time, as a version-4 writer
        // (neither) encoded it
        Schema v4;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/ExecutionRecord-v4.avsc")) {
            v4 = new Schema.Parser().parse(in);
        }
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L);
        var attempt = new Attempt(1, State.SUCCESS, List.of(new StateHistory(State.RUNNING, at),
                new StateHistory(State.SUCCESS, at.plusMillis(9))), at.plusSeconds(30), null, false,
                new WorkerTimes(at.plusMillis(1), at.plusMillis(2), at.plusMillis(8)));
        var run = new TaskRun("r1", "t1", null, null, null, State.SUCCESS, List.of(new StateHistory(State.CREATED, at),
                new StateHistory(State.SUCCESS, at.plusMillis(9))), List.of(attempt), null);
        var execution = new Execution("e1", "ns", "f", 1, Map.of(), Map.of(), null, State.SUCCESS,
                List.of(new StateHistory(State.CREATED, at), new StateHistory(State.SUCCESS, at.plusMillis(9))),
                TaskRuns.of(List.of(run)), null, null, Lineage.FIRST, at.minusMillis(3));
        ExecutionRecord current = ExecutionMapper.toRecord(execution);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v4).encode(asVersion(current, v4));
        var serde = new AvroSerde<ExecutionRecord>(ExecutionRecord.getClassSchema());

        // when
        Execution read = ExecutionMapper.fromRecord(serde.decode(toArray(bytes)));
        Execution now = ExecutionMapper.fromRecord(serde.decode(serde.encode(current)));

        // then: the older record reads without them; the current one keeps them
        assertThat(read.requestedAt()).isNull();
        assertThat(read.taskRuns().getFirst().attempts().getFirst().worker()).isNull();
        assertThat(now).isEqualTo(execution);
    }

    @Test
    void shouldKeepWorkerTimesAndRequestTimesThroughResultsAndEvents() {
        // given
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L);
        var times = new WorkerTimes(at, at.plusMillis(1), at.plusMillis(7));
        var result = new TaskResult("e1", "r1", 1, State.SUCCESS, Map.of("value", "x"), null, "worker-1", times,
                times.ended());
        List<Event> events = List.of(new TaskRunCompleted("r1", State.SUCCESS, Map.of(), null, times, at),
                new TaskRunRetrying("r1", 1, "boom", at.plusSeconds(1), times, at),
                new ExecutionCreated("e1", "ns", "f", 1, Map.of(), Map.of(), null, Lineage.FIRST, at.minusMillis(2), at));

        // when / then
        assertThat(CommandMapper.fromRecord(Topics.RESULT_SERDE.decode(Topics.RESULT_SERDE.encode(
                CommandMapper.toRecord(result))))).isEqualTo(result);
        assertThat(EventMapper.fromRecord(Topics.EVENT_SERDE.decode(Topics.EVENT_SERDE.encode(
                EventMapper.toRecord("e1", events))))).as("the events of one step, in one record").isEqualTo(events);
    }

    @Test
    void shouldRoundTripTheCurrentVersion() {
        // given
        var record = new TaskResultRecord("e1", "r1", 1, io.millrace.serdes.avro.StateValue.FAILED, "{}", "boom",
                Instant.ofEpochMilli(5), "worker-1", new io.millrace.serdes.avro.WorkerTimesRecord(Instant.ofEpochMilli(1),
                        Instant.ofEpochMilli(2), Instant.ofEpochMilli(5)));

        // when
        byte[] bytes = Topics.RESULT_SERDE.serializer().serialize("t", record);

        // then
        assertThat(bytes[0]).isEqualTo((byte) 0xC3); // single-object encoding marker
        assertThat(Topics.RESULT_SERDE.deserializer().deserialize("t", bytes)).isEqualTo(record);
    }

    @Test
    void shouldRejectBytesOfAnUnknownSchema() {
        assertThatThrownBy(() -> Topics.RESULT_SERDE.decode(new byte[] {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("TaskResultRecord");
    }

    @Test
    void shouldKeepTheErrorOfAFailedTaskRunThroughTheStoreSerde() {
        // given
        Execution execution = failedExecution();
        var serde = new AvroSerde<ExecutionRecord>(ExecutionRecord.getClassSchema());

        // when
        ExecutionRecord read = serde.decode(serde.encode(ExecutionMapper.toRecord(execution)));

        // then
        assertThat(ExecutionMapper.fromRecord(read)).isEqualTo(execution);
    }

    private static Execution failedExecution() {
        Instant at = Instant.ofEpochMilli(1_700_000_000_000L);
        var run = new TaskRun("r1", "t1", null, null, null, State.FAILED,
                List.of(new StateHistory(State.CREATED, at), new StateHistory(State.FAILED, at)), List.of(), "boom");
        return new Execution("e1", "ns", "f", 1, Map.of(), Map.of(), null, State.FAILED,
                List.of(new StateHistory(State.CREATED, at), new StateHistory(State.FAILED, at)), List.of(run), null,
                "Task 't1' ended FAILED: boom");
    }

    /** The record as a writer of {@code older} would have made it: fields {@code older} lacks are dropped. */
    private static GenericRecord asVersion(SpecificRecord record, Schema older) throws Exception {
        var out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<SpecificRecord>(record.getSchema()).write(record, encoder);
        encoder.flush();
        return new GenericDatumReader<GenericRecord>(record.getSchema(), older)
                .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
