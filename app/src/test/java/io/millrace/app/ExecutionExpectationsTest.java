package io.millrace.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.millrace.serdes.Json;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The conformance runner's checks on hand-made executions, for what today's engine cannot run yet. */
class ExecutionExpectationsTest {

    /** each-switch, as Kestra records it: only a loop's direct children carry the iteration value. */
    private static final String KESTRA_RUNS = """
            {"id": "e1", "state": {"current": "SUCCESS"}, "taskRunList": [
              {"id": "r1", "taskId": "2_each", "parentTaskRunId": null, "value": null, "outputs": {}},
              {"id": "r2", "taskId": "2-1_switch", "parentTaskRunId": "r1", "value": "b", "state": {"current": "SUCCESS"},
               "outputs": {"value": "b"}},
              {"id": "r3", "taskId": "2-1_each", "parentTaskRunId": "r2", "value": null, "outputs": {}},
              {"id": "r4", "taskId": "2-1-1_switch", "parentTaskRunId": "r3", "value": "1", "outputs": {"value": "1"}},
              {"id": "r5", "taskId": "2-1-1_switch-number-1", "parentTaskRunId": "r4", "value": null, "outputs": {"value": "1"}}]}
            """;
    /** The same runs from an engine that copies the iteration value onto every run inside the iteration. */
    private static final String COPIED_VALUES = KESTRA_RUNS
            .replace("\"r3\", \"taskId\": \"2-1_each\", \"parentTaskRunId\": \"r2\", \"value\": null",
                    "\"r3\", \"taskId\": \"2-1_each\", \"parentTaskRunId\": \"r2\", \"value\": \"b\"")
            .replace("\"parentTaskRunId\": \"r4\", \"value\": null", "\"parentTaskRunId\": \"r4\", \"value\": \"1\"");
    private static final Set<String> LOOPS = Set.of("2_each", "2-1_each");

    @Test
    void shouldFindARunByTheValuesOfItsEnclosingIterations() throws Exception {
        // given
        var kestra = new TaskRuns(Json.MAPPER.readTree(KESTRA_RUNS), LOOPS);
        var copied = new TaskRuns(Json.MAPPER.readTree(COPIED_VALUES), LOOPS);

        // when / then
        assertThat(kestra.find("2-1-1_switch-number-1", List.of("b", "1"))).isPresent();
        assertThat(copied.find("2-1-1_switch-number-1", List.of("b", "1"))).isPresent();
        assertThat(kestra.find("2_each", List.of())).isPresent();
    }

    @Test
    void shouldPassTaskRunsOutputsTreeAndRelationsOfAMatchingExecution() throws Exception {
        // given
        JsonNode expected = Json.MAPPER.readTree("""
                {"state": "SUCCESS", "taskRunCount": 5,
                 "taskRuns": [{"taskId": "2-1-1_switch-number-1", "value_path": ["b", "1"], "outputs": {"value": {"equals": "1"}}}],
                 "executionOutputsTree": {"2-1-1_switch-number-1.b.1.value": "1", "2-1_switch.b.value": "b"},
                 "relations": ["output.value of 2-1_switch[b] CONTAINS output.value of 2-1_switch[b]"],
                 "absentTaskIds": ["never"]}
                """);

        // when
        Findings findings = check(KESTRA_RUNS, expected);

        // then
        assertThat(findings.all()).isEmpty();
        assertThat(findings.result()).isEqualTo(Findings.Result.PASS);
    }

    @Test
    void shouldReportEachDeviationWithExpectedAndActual() throws Exception {
        // given
        JsonNode expected = Json.MAPPER.readTree("""
                {"state": "FAILED", "taskRunStates": {"2-1_switch": "FAILED"}, "taskRunList": [{"index": 1, "taskId": "other"}]}
                """);

        // when
        Findings findings = check(KESTRA_RUNS, expected);

        // then
        assertThat(findings.all()).containsExactly(
                "state: expected FAILED, but was SUCCESS",
                "taskRunStates.2-1_switch: expected FAILED, but was SUCCESS",
                "taskRunList[1].taskId: expected other, but was 2-1_switch");
        assertThat(findings.result()).isEqualTo(Findings.Result.FAIL);
    }

    @Test
    void shouldFailOnAnAssertionKindItDoesNotKnow() throws Exception {
        // given
        JsonNode expected = Json.MAPPER.readTree("""
                {"metrics": {"count": 1}, "taskRuns": [{"taskId": "t", "outputs": {"value": {"startsWith": "a"}}}],
                 "relations": ["output.value of a EQUALS output.value of b"]}
                """);

        // when
        var findings = new Findings();
        ExecutionExpectations.vet(expected, findings);

        // then
        assertThat(findings.unknown()).containsExactly("'metrics'", "taskRuns 't'.outputs.value: matcher 'startsWith'",
                "relation 'output.value of a EQUALS output.value of b'");
        assertThat(findings.result()).isEqualTo(Findings.Result.FAIL);
    }

    @Test
    void shouldReadTheRelationSentencesOfTheCorpus() {
        // when
        var relation = CorpusPhrases.relation(
                "output.value of 1-2-2_return[s1,'a a'] CONTAINS 'get ' + output.value of 1-2-1_return[s1,'a a']");

        // then
        assertThat(relation).contains(new CorpusPhrases.Relation(
                List.of(new CorpusPhrases.Term(null, "1-2-2_return", List.of("s1", "a a"))),
                List.of(new CorpusPhrases.Term("get ", null, List.of()),
                        new CorpusPhrases.Term(null, "1-2-1_return", List.of("s1", "a a")))));
        assertThat(CorpusPhrases.ordering("a2 starts after a1 ends")).contains(new CorpusPhrases.Ordering("a2", "a1"));
        assertThat(CorpusPhrases.relation("output.value of x EQUALS y")).isEmpty();
    }

    private static Findings check(String executionJson, JsonNode expected) throws Exception {
        JsonNode execution = Json.MAPPER.readTree(executionJson);
        var findings = new Findings();
        ExecutionExpectations.check(new ExecutionExpectations.Subject(execution, new TaskRuns(execution, LOOPS),
                List::of, List::of, done -> List.of(), done -> List.of(), findings), expected);
        return findings;
    }
}
