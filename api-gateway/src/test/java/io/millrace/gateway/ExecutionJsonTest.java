package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.millrace.core.execution.Attempt;
import io.millrace.core.execution.Execution;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.State;
import io.millrace.core.execution.StateHistory;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.serdes.ExecutionMapper;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutionJsonTest {
    private static final Instant T0 = Instant.parse("2025-01-02T03:04:05Z");
    private static final Instant T1 = T0.plusMillis(250);
    private static final Instant T2 = T0.plusMillis(1500);

    @Test
    void shouldShowWhereTheTimeWentAndTheWorkersTimesOfEachAttempt() {
        // given: a start asked for 40 ms before T0; one attempt dispatched at T1, read back at T2
        var worker = new WorkerTimes(T1.plusMillis(5), T1.plusMillis(15), T2.minusMillis(20));
        var attempt = new Attempt(1, State.SUCCESS, List.of(new StateHistory(State.RUNNING, T1),
                new StateHistory(State.SUCCESS, T2)), T2.plusSeconds(30), null, false, worker);
        var run = new TaskRun("tr1", "hello", null, null, null, State.SUCCESS,
                List.of(new StateHistory(State.CREATED, T1), new StateHistory(State.SUCCESS, T2)), List.of(attempt), null);
        var execution = new Execution("ex1", "ns", "f", 1, Map.of(), Map.of(), null, State.SUCCESS,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.SUCCESS, T2)),
                TaskRuns.of(List.of(run)), null, null, Lineage.FIRST, T0.minusMillis(40));

        // when: the answer that waited for the end read it 30 ms after
        ObjectNode json = ExecutionJson.of(execution, Map.of(), T2);
        var endToRead = ExecutionJson.endToRead(json, T2.plusMillis(30));

        // then
        JsonNode breakdown = json.path("breakdown");
        assertThat(breakdown.path("queued").asText()).isEqualTo("PT0.04S");
        assertThat(breakdown.path("toWorkers").asText()).isEqualTo("PT0.005S");
        assertThat(breakdown.path("waitingForSlot").asText()).isEqualTo("PT0.01S");
        assertThat(breakdown.path("running").asText()).isEqualTo("PT1.215S");
        assertThat(breakdown.path("resultsBack").asText()).isEqualTo("PT0.02S");
        assertThat(breakdown.path("outsideWorkers").asText()).isEqualTo("PT0.25S"); // T0 to the dispatch at T1
        assertThat(breakdown.path("total").asText()).isEqualTo("PT1.5S");
        assertThat(breakdown.path("endToRead").asText()).isEqualTo("PT0.03S");
        assertThat(endToRead).contains(Duration.ofMillis(30));
        JsonNode times = json.path("taskRunList").get(0).path("attempts").get(0).path("worker");
        assertThat(times.path("receivedDate").asText()).isEqualTo(worker.received().toString());
        assertThat(times.path("startedDate").asText()).isEqualTo(worker.started().toString());
        assertThat(times.path("endedDate").asText()).isEqualTo(worker.ended().toString());
    }

    @Test
    void shouldLeaveOutTheEndToReadOfAnExecutionThatHasNotEnded() {
        // given
        var execution = new Execution("ex2", "ns", "f", 1, Map.of(), Map.of(), null, State.RUNNING,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.RUNNING, T1)), List.of(), null, null);
        ObjectNode json = ExecutionJson.of(execution, Map.of(), T2);

        // when / then
        assertThat(ExecutionJson.endToRead(json, T2)).isEmpty();
        assertThat(json.path("breakdown").has("endToRead")).isFalse();
        assertThat(json.path("breakdown").has("total")).isFalse();
        assertThat(json.path("breakdown").has("queued")).isFalse(); // no request time known
    }

    @Test
    void shouldMapATerminalExecutionWithKestraFieldNames() {
        // given
        var attempt = new Attempt(1, State.SUCCESS,
                List.of(new StateHistory(State.RUNNING, T1), new StateHistory(State.SUCCESS, T2)), T2.plusSeconds(30), null, false);
        var run = new TaskRun("tr1", "hello", null, null, null, State.SUCCESS,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.RUNNING, T1),
                        new StateHistory(State.SUCCESS, T2)), List.of(attempt), null);
        var execution = new Execution("ex1", "company.team", "greet", 3, Map.of("name", "Ada"),
                Map.of("team", "core", "env", "dev"), null, State.SUCCESS,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.RUNNING, T1),
                        new StateHistory(State.SUCCESS, T2)),
                List.of(run), Map.of("greeting", "hi Ada"), null);
        var snapshot = new ReadModel.Snapshot(
                new ExecutionSnapshot(ExecutionMapper.toHeaderRecord(execution), Map.of(), T2, 1),
                List.of(new TaskRunSnapshot("ex1", 0, ExecutionMapper.toRecord(run), "{\"value\":\"hi\"}", T2)));
        var inline = new ReadModel.Snapshot(new ExecutionSnapshot(ExecutionMapper.toRecord(execution),
                Map.of("tr1", "{\"value\":\"hi\"}"), T2, null), List.of());

        // when
        JsonNode json = ExecutionJson.of(snapshot, T2.plusSeconds(60));

        // then: the same as from a snapshot of an older executor, which sent the runs inline
        assertThat(ExecutionJson.of(inline, T2.plusSeconds(60))).isEqualTo(json);

        // then
        assertThat(json.path("id").asText()).isEqualTo("ex1");
        assertThat(json.path("namespace").asText()).isEqualTo("company.team");
        assertThat(json.path("flowId").asText()).isEqualTo("greet");
        assertThat(json.path("flowRevision").asInt()).isEqualTo(3);
        assertThat(json.path("inputs").path("name").asText()).isEqualTo("Ada");
        assertThat(json.path("labels").toString())
                .isEqualTo("[{\"key\":\"env\",\"value\":\"dev\"},{\"key\":\"team\",\"value\":\"core\"}]");
        JsonNode state = json.path("state");
        assertThat(state.path("current").asText()).isEqualTo("SUCCESS");
        assertThat(state.path("histories")).hasSize(3);
        assertThat(state.path("histories").get(0).path("state").asText()).isEqualTo("CREATED");
        assertThat(state.path("histories").get(0).path("date").asText()).isEqualTo("2025-01-02T03:04:05Z");
        assertThat(state.path("startDate").asText()).isEqualTo("2025-01-02T03:04:05Z");
        assertThat(state.path("endDate").asText()).isEqualTo("2025-01-02T03:04:06.500Z");
        assertThat(state.path("duration").asText()).isEqualTo("PT1.5S");
        JsonNode taskRun = json.path("taskRunList").get(0);
        assertThat(taskRun.path("id").asText()).isEqualTo("tr1");
        assertThat(taskRun.path("executionId").asText()).isEqualTo("ex1");
        assertThat(taskRun.path("namespace").asText()).isEqualTo("company.team");
        assertThat(taskRun.path("flowId").asText()).isEqualTo("greet");
        assertThat(taskRun.path("taskId").asText()).isEqualTo("hello");
        assertThat(taskRun.path("parentTaskRunId").isNull()).isTrue();
        assertThat(taskRun.path("value").isNull()).isTrue();
        assertThat(taskRun.has("iteration")).isFalse();
        assertThat(taskRun.path("state").path("current").asText()).isEqualTo("SUCCESS");
        assertThat(taskRun.path("attempts").get(0).path("state").path("current").asText()).isEqualTo("SUCCESS");
        assertThat(taskRun.path("attempts").get(0).path("state").path("histories")).hasSize(2);
        assertThat(taskRun.path("outputs").path("value").asText()).isEqualTo("hi");
        assertThat(json.path("outputs").path("greeting").asText()).isEqualTo("hi Ada");
        assertThat(json.has("error")).isFalse();
    }

    @Test
    void shouldLeaveOutEndDateAndCountDurationUntilNowWhileRunning() {
        // given
        var execution = new Execution("ex2", "ns", "f", 1, Map.of(), Map.of(), null, State.RUNNING,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.RUNNING, T1)), List.of(), null, null);

        // when
        JsonNode json = ExecutionJson.of(execution, Map.of(), T0.plusSeconds(2));

        // then
        assertThat(json.path("state").has("endDate")).isFalse();
        assertThat(json.path("state").path("duration").asText()).isEqualTo("PT2S");
        assertThat(json.path("taskRunList")).isEmpty();
        assertThat(json.path("labels")).isEmpty();
        assertThat(json.has("outputs")).isTrue();
        assertThat(json.path("outputs").isNull()).isTrue();
    }

    @Test
    void shouldShowTheErrorOfAFailedExecutionAndEmptyOutputsOfATaskRunWithout() {
        // given
        var run = new TaskRun("tr9", "boom", "tr0", "item-1", 3, State.FAILED,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.FAILED, T1)), List.of(),
                "Task 'boom': no such thing");
        var execution = new Execution("ex3", "ns", "f", 1, Map.of(), Map.of(), null, State.FAILED,
                List.of(new StateHistory(State.CREATED, T0), new StateHistory(State.FAILED, T1)), List.of(run), null,
                "Task 'boom' ended FAILED: Task 'boom': no such thing");

        // when
        JsonNode json = ExecutionJson.of(execution, Map.of(), T2);

        // then
        assertThat(json.path("error").asText()).isEqualTo("Task 'boom' ended FAILED: Task 'boom': no such thing");
        JsonNode taskRun = json.path("taskRunList").get(0);
        assertThat(taskRun.path("parentTaskRunId").asText()).isEqualTo("tr0");
        assertThat(taskRun.path("value").asText()).isEqualTo("item-1");
        assertThat(taskRun.path("iteration").asInt()).isEqualTo(3);
        assertThat(taskRun.path("outputs").isObject()).isTrue();
        assertThat(taskRun.path("outputs")).isEmpty();
        assertThat(taskRun.path("attempts")).isEmpty();
        assertThat(taskRun.path("error").asText()).isEqualTo("Task 'boom': no such thing");
    }

    @Test
    void shouldMaskEncryptedValuesWhereverTheyAre() {
        // given
        String encrypted = io.millrace.core.flow.InputCipher.PREFIX + "q83vEjRWeJA+/w==";
        var execution = new Execution("ex1", "company.team", "greet", 3, Map.of("password", encrypted, "name", "Ada"),
                Map.of(), null, State.FAILED, List.of(new StateHistory(State.CREATED, T0)), List.of(),
                Map.of("copy", "pw=" + encrypted + "!", encrypted, List.of(encrypted)), "Expected '" + encrypted + "'");

        // when
        JsonNode json = ExecutionJson.of(execution, Map.of(), T2);

        // then
        assertThat(json.toString()).doesNotContain("millrace:encrypted").doesNotContain("q83vEjRWeJA");
        assertThat(json.path("inputs").path("password").asText()).isEqualTo("******");
        assertThat(json.path("inputs").path("name").asText()).isEqualTo("Ada");
        assertThat(json.path("outputs").path("copy").asText()).isEqualTo("pw=******!");
        assertThat(json.path("outputs").path("******").get(0).asText()).isEqualTo("******");
        assertThat(json.path("error").asText()).isEqualTo("Expected '******'");
    }
}
