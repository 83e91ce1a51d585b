package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VariablesTest {

    @Test
    void shouldBuildKestraVariableGroups() {
        // given
        Instant start = Instant.parse("2024-01-01T00:00:00Z");

        // when
        Map<String, Object> vars = Variables.builder()
                .execution("ex1", start)
                .flow("ns", "flow", 2)
                .inputs(Map.of("a", 1))
                .outputs(Map.of("t1", Map.of("value", "v")))
                .labels(Map.of("team", "data"))
                .task("t2", "io.kestra.plugin.core.log.Log")
                .taskRun("tr1", start, 3)
                .build();

        // then
        assertThat(vars).containsOnlyKeys("execution", "flow", "inputs", "outputs", "labels", "task", "taskrun");
        assertThat(vars.get("execution")).isEqualTo(Map.of("id", "ex1", "startDate", start));
        assertThat(vars.get("flow")).isEqualTo(Map.of("namespace", "ns", "id", "flow", "revision", 2));
        assertThat(vars.get("inputs")).isEqualTo(Map.of("a", 1));
        assertThat(vars.get("outputs")).isEqualTo(Map.of("t1", Map.of("value", "v")));
        assertThat(vars.get("labels")).isEqualTo(Map.of("team", "data"));
        assertThat(vars.get("task")).isEqualTo(Map.of("id", "t2", "type", "io.kestra.plugin.core.log.Log"));
        assertThat(vars.get("taskrun")).isEqualTo(Map.of("id", "tr1", "startDate", start, "attemptsCount", 3));
    }

    @Test
    void shouldNameTheOriginalExecutionOnlyWhenThereIsOne() {
        // given
        Instant start = Instant.parse("2024-01-01T00:00:00Z");

        // when
        Object first = Variables.builder().execution("ex1", start, null).build().get("execution");
        Object retry = Variables.builder().execution("ex2", start, "ex1").build().get("execution");

        // then
        assertThat(first).isEqualTo(Map.of("id", "ex1", "startDate", start));
        assertThat(retry).isEqualTo(Map.of("id", "ex2", "startDate", start, "originalId", "ex1"));
    }

    @Test
    void shouldLeaveUnsetGroupsAbsent() {
        // when
        Map<String, Object> vars = Variables.builder().task("t", "log").build();

        // then
        assertThat(vars).containsOnlyKeys("task");
    }

    @Test
    void shouldBuildUnmodifiableSnapshots() {
        // given
        Variables.Builder builder = Variables.builder().task("t", "log");
        Map<String, Object> first = builder.build();

        // when
        builder.put("vars", Map.of("x", 1));

        // then
        assertThat(first).containsOnlyKeys("task");
        assertThatThrownBy(() -> first.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> task = (Map<String, Object>) first.get("task");
        assertThatThrownBy(() -> task.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldRenderTheTaskRunValueEmptyOutsideALoop() throws Exception {
        // given
        Instant start = Instant.parse("2024-01-01T00:00:00Z");
        var expressions = new Expressions();

        // when
        Map<String, Object> inLoop = Variables.builder().taskRun("tr1", start, 1, "v1", 2, "parent-1").build();
        Map<String, Object> outside = Variables.builder().taskRun("tr1", start, 1, null).build();

        // then
        assertThat(expressions.render("{{ taskrun.value }}#{{ taskrun.iteration }}#{{ taskrun.parentId }}", inLoop))
                .isEqualTo("v1#2#parent-1");
        assertThat(expressions.render("[{{ taskrun.value }}]", outside)).isEqualTo("[]");
        assertThat(outside.get("taskrun")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .doesNotContainKey("iteration");
    }

    @Test
    void shouldSetParentToTheNearestOfParents() {
        // given
        Map<String, Object> nearest = Map.of("taskrun", Map.of("value", "inner"));
        Map<String, Object> outer = Map.of("taskrun", Map.of("value", "outer"));

        // when
        Map<String, Object> vars = Variables.builder().parents(List.of(nearest, outer)).build();
        Map<String, Object> none = Variables.builder().parent(outer).parents(List.of()).build();

        // then
        assertThat(vars.get("parents")).isEqualTo(List.of(nearest, outer));
        assertThat(vars.get("parent")).isEqualTo(nearest);
        assertThat(none).containsOnlyKeys("parents");
    }

    @Test
    void shouldPutFlowVariablesAndErrorLogsUnderTheirNames() {
        // given
        List<Map<String, Object>> logs = List.of(Map.of("taskId", "t", "message", "boom"));

        // when
        Map<String, Object> vars = Variables.builder().vars(Map.of("x", 1)).errorLogs(logs).build();

        // then
        assertThat(vars).containsOnlyKeys("vars", Variables.ERROR_LOGS);
        assertThat(vars.get("vars")).isEqualTo(Map.of("x", 1));
        assertThat(vars.get(Variables.ERROR_LOGS)).isEqualTo(logs);
    }
}
