package io.millrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlowTriggerSpecTest {

    private static FlowTriggerSpec spec(Map<String, Object> properties) {
        var problems = new ArrayList<String>();
        FlowTriggerSpec spec = FlowTriggerSpec.read(properties, "here", problems);
        assertThat(problems).isEmpty();
        return spec;
    }

    @Test
    void shouldMatchEveryTerminalStateOfAnyFlowWithoutConditions() {
        FlowTriggerSpec spec = spec(Map.of());

        assertThat(spec.matches("ns", "f", "SUCCESS", Map.of())).isTrue();
        assertThat(spec.matches("ns", "f", "KILLED", Map.of())).isTrue();
        assertThat(spec.matches("ns", "f", "CANCELLED", Map.of())).as("past a concurrency limit").isTrue();
        assertThat(spec.matches("ns", "f", "RETRIED", Map.of())).as("retried as a new execution").isTrue();
        assertThat(FlowTriggerSpec.ended("QUEUED")).isFalse();
        assertThat(spec.matches("ns", "f", "RUNNING", Map.of())).isFalse();
    }

    @Test
    void shouldHoldEveryConditionAndTheStates() {
        // given
        FlowTriggerSpec spec = spec(Map.of("states", List.of("SUCCESS", "FAILED"), "conditions", List.of(
                Map.of("type", "io.kestra.plugin.core.condition.ExecutionFlow", "namespace", "company.team", "flowId", "etl"),
                Map.of("type", "io.kestra.core.models.conditions.types.ExecutionStatusCondition", "notIn", List.of("FAILED")),
                Map.of("type", "io.kestra.plugin.core.condition.ExecutionNamespace", "namespace", "company", "prefix", true),
                Map.of("type", "io.kestra.plugin.core.condition.ExecutionLabels", "labels", List.of(Map.of("key", "env", "value", "prod"))))));

        // then
        assertThat(spec.matches("company.team", "etl", "SUCCESS", Map.of("env", "prod", "other", "x"))).isTrue();
        assertThat(spec.matches("company.team", "etl", "FAILED", Map.of("env", "prod"))).isFalse();
        assertThat(spec.matches("company.team", "etl", "SUCCESS", Map.of("env", "dev"))).isFalse();
        assertThat(spec.matches("company.team", "load", "SUCCESS", Map.of("env", "prod"))).isFalse();
        assertThat(spec.matches("company.team", "etl", "WARNING", Map.of("env", "prod"))).isFalse();
    }

    @Test
    void shouldCompareNamespacesAsAsked() {
        var suffix = spec(Map.of("conditions", List.of(Map.of("type", "io.kestra.plugin.core.condition.ExecutionNamespace",
                "namespace", ".team", "comparison", "SUFFIX"))));
        var equals = spec(Map.of("conditions", List.of(Map.of("type", "io.kestra.plugin.core.condition.ExecutionNamespace",
                "namespace", "company"))));

        assertThat(suffix.matches("company.team", "f", "SUCCESS", Map.of())).isTrue();
        assertThat(suffix.matches("company.ops", "f", "SUCCESS", Map.of())).isFalse();
        assertThat(equals.matches("company", "f", "SUCCESS", Map.of())).isTrue();
        assertThat(equals.matches("company.team", "f", "SUCCESS", Map.of())).isFalse();
    }
}
