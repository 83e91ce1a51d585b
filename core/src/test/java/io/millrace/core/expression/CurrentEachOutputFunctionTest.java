package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CurrentEachOutputFunctionTest {

    private static final Instant START = Instant.parse("2024-12-20T10:15:30Z");

    /** The corpus flow current-output: the Return task three ForEach loops deep. */
    private static final String NESTED_RETURN_FORMAT = "return-{{ currentEachOutput(outputs['1-1-1_output']).value }}";

    private final Expressions expressions = new Expressions();

    /** outputs['1-1-1_output'][v1][v2][v3] = {value: "v1-v2-v3"}, as the three loops of current-output leave them. */
    private static Map<String, Map<String, Object>> nestedOutputs() {
        Map<String, Object> byOuter = new LinkedHashMap<>();
        for (String v1 : List.of("v11", "v12")) {
            Map<String, Object> byMiddle = new LinkedHashMap<>();
            for (String v2 : List.of("v21", "v22")) {
                Map<String, Object> byInner = new LinkedHashMap<>();
                for (String v3 : List.of("v31", "v32")) {
                    byInner.put(v3, Map.of("value", v1 + "-" + v2 + "-" + v3));
                }
                byMiddle.put(v2, byInner);
            }
            byOuter.put(v1, byMiddle);
        }
        return Map.of("1-1-1_output", byOuter);
    }

    private static Map<String, Object> taskRunValue(String value) {
        return Map.of("taskrun", Map.of("value", value));
    }

    @Test
    void shouldWalkThreeNestedLoopsOutermostFirst() throws Exception {
        // given: iteration v12 > v21 > v32; a parent without an iteration value (e.g. a Switch) is skipped
        Map<String, Object> vars = Variables.builder()
                .outputs(nestedOutputs())
                .taskRun("tr", START, 1, "v32")
                .parents(List.of(taskRunValue("v21"), Map.of("outputs", Map.of("value", "case")), taskRunValue("v12")))
                .build();

        // when
        String rendered = expressions.render(NESTED_RETURN_FORMAT, vars);

        // then
        assertThat(rendered).isEqualTo("return-v12-v21-v32");
        assertThat(expressions.render(NESTED_RETURN_FORMAT, vars)).isEqualTo(rendered);
    }

    @Test
    void shouldUseTheTaskRunValueAloneInASingleLoop() throws Exception {
        // given: 2_each of current-output
        Map<String, Object> vars = Variables.builder()
                .outputs(Map.of("2-1_output", Map.of("v41", Map.of("value", "v41"), "v42", Map.of("value", "v42"))))
                .taskRun("tr", START, 1, "v42")
                .parents(List.of())
                .build();

        // when
        String rendered = expressions.render("return-{{ currentEachOutput(outputs['2-1_output']).value }}", vars);

        // then
        assertThat(rendered).isEqualTo("return-v42");
    }

    @Test
    void shouldFailWhenAnEnclosingIterationHasNoOutputs() {
        // given
        Map<String, Object> vars = Variables.builder()
                .outputs(nestedOutputs())
                .taskRun("tr", START, 1, "v31")
                .parents(List.of(taskRunValue("v21"), taskRunValue("v99")))
                .build();

        // when / then
        assertThatThrownBy(() -> expressions.render(NESTED_RETURN_FORMAT, vars))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected 'currentEachOutput' to find outputs for the enclosing iteration 'v99', but there are none");
    }

    @Test
    void shouldGiveNullWhenTheCurrentIterationHasNoOutputsYet() throws Exception {
        // given
        Map<String, Object> vars = Variables.builder()
                .outputs(nestedOutputs())
                .taskRun("tr", START, 1, "v39")
                .parents(List.of(taskRunValue("v21"), taskRunValue("v11")))
                .build();

        // when
        String rendered = expressions.render("{{ currentEachOutput(outputs['1-1-1_output']) ?? 'none' }}", vars);

        // then
        assertThat(rendered).isEqualTo("none");
    }

    @Test
    void shouldFailOnAnArgumentThatIsNotOutputs() {
        // when / then
        assertThatThrownBy(() -> expressions.render("{{ currentEachOutput('t') }}", Variables.builder().taskRun("tr", START, 1, "v").build()))
                .isInstanceOf(ExpressionException.class)
                .hasMessageContaining("Expected 'currentEachOutput' to have a task's outputs (a map) as argument, but it has a String");
    }
}
