package io.millrace.core.decide;

import static io.millrace.core.decide.ExecutionDriver.only;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.execution.State;
import org.junit.jupiter.api.Test;

/** The executor never resolves a secret: its renders refuse {@code secret()}; a task gets the template as written. */
class SecretsOnTheExecutorTest {

    private static final String REFUSED = "rendered on the worker that runs the task, but it is rendered elsewhere";

    private static String flow(String tasks) {
        return "id: f\nnamespace: io.millrace.tests\n" + tasks;
    }

    @Test
    void shouldDispatchATaskWithItsSecretExpressionUnrendered() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - {id: t, type: return, format: "{{ secret('db') }}"}
                """));

        // when
        var created = driver.create();

        // then
        var dispatched = created.effects().stream().filter(Effect.DispatchTask.class::isInstance)
                .map(Effect.DispatchTask.class::cast).toList();
        assertThat(dispatched).singleElement()
                .satisfies(d -> assertThat(d.task().properties()).containsEntry("format", "{{ secret('db') }}"));
    }

    @Test
    void shouldFailARunWhoseRunIfReadsASecret() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - {id: t, type: log, message: m, runIf: "{{ secret('db') == 'x' }}"}
                """));

        // when
        driver.create();

        // then
        assertThat(driver.runOf("t").state()).isEqualTo(State.FAILED);
        assertThat(driver.runOf("t").error()).startsWith("runIf: Unable to render").contains(REFUSED);
    }

    @Test
    void shouldFailAnIfWhoseConditionReadsASecret() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - id: if
                    type: io.kestra.plugin.core.flow.If
                    condition: "{{ secret('db') }}"
                    then:
                      - {id: never, type: log, message: m}
                """));

        // when
        driver.create();

        // then
        assertThat(driver.runOf("if").state()).isEqualTo(State.FAILED);
        assertThat(driver.runOf("if").error()).contains(REFUSED);
        assertThat(driver.execution().state()).isEqualTo(State.FAILED);
    }

    @Test
    void shouldFailTheExecutionWhoseFlowOutputReadsASecret() {
        // given
        var driver = ExecutionDriver.flow(flow("""
                tasks:
                  - {id: t, type: log, message: m}
                outputs:
                  - {id: leaked, type: STRING, value: "{{ secret('db') }}"}
                """));
        driver.create();

        // when
        var decision = driver.succeed("t");

        // then
        var completed = only(decision, ExecutionCompleted.class);
        assertThat(completed.state()).isEqualTo(State.FAILED);
        assertThat(completed.outputs()).isNull();
        assertThat(completed.error()).startsWith("Flow outputs failed").contains(REFUSED);
    }
}
