package io.millrace.worker.task;

import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FailTaskTest {

    private static final Map<String, Object> VARS = Variables.builder()
            .inputs(Map.of("param", "fail", "name", "world"))
            .build();

    private static TaskOutcome fail(Map<String, Object> props) throws InterruptedException {
        return Invocations.execute(Invocations.of("f", "fail", props, VARS));
    }

    @Test
    void shouldFailWithTheDefaultMessageWithoutCondition() throws Exception {
        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("f", TaskTypes.FAIL, Map.of(), VARS));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.failed("Task 'f': Task failure"));
    }

    @Test
    void shouldFailWithTheRenderedErrorMessage() throws Exception {
        // when
        TaskOutcome outcome = fail(Map.of("errorMessage", "{{ inputs.name }} is broken"));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.failed("Task 'f': world is broken"));
    }

    @Test
    void shouldFailWhenTheRenderedConditionIsTrue() throws Exception {
        // when
        TaskOutcome outcome = fail(Map.of("condition", "{{ inputs.param == \"fail\" }}", "errorMessage", "param was {{ inputs.param }}"));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.failed("Task 'f': param was fail"));
    }

    @Test
    void shouldSucceedWithoutOutputsWhenTheRenderedConditionIsFalse() throws Exception {
        // given: an error message that cannot be rendered, which must not matter when the task does not fail
        Map<String, Object> props = Map.of("condition", "{{ inputs.param == \"other\" }}", "errorMessage", "{{ outputs.nope.value }}");

        // when
        TaskOutcome outcome = fail(props);

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"false", "0", "-0", ""})
    void shouldTreatKestrasFalsyRenderingsAsFalse(String condition) throws Exception {
        // when
        TaskOutcome outcome = fail(Map.of("condition", condition));

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"true", "1", "yes", "False", " false", "0.0", "null"})
    void shouldTreatAnyOtherRenderingAsTrue(String condition) throws Exception {
        // when
        TaskOutcome outcome = fail(Map.of("condition", condition));

        // then
        assertThat(outcome.state()).isEqualTo(State.FAILED);
    }

    @Test
    void shouldReadYamlBooleansAndNumbersAsTheirText() throws Exception {
        // when
        TaskOutcome yamlFalse = fail(Map.of("condition", false));
        TaskOutcome yamlZero = fail(Map.of("condition", 0));
        TaskOutcome yamlTrue = fail(Map.of("condition", true));

        // then
        assertThat(yamlFalse.state()).isEqualTo(State.SUCCESS);
        assertThat(yamlZero.state()).isEqualTo(State.SUCCESS);
        assertThat(yamlTrue.state()).isEqualTo(State.FAILED);
    }

    @Test
    void shouldFailNamingTheConditionWhenItCannotBeRendered() throws Exception {
        // when
        TaskOutcome outcome = fail(Map.of("condition", "{{ outputs.missing.value }}"));

        // then
        assertThat(outcome.error()).startsWith("Task 'f': property 'condition': Unable to render");
    }
}
