package io.millrace.worker.task;

import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Log, Return, OutputValues and Sleep. */
class SimpleTasksTest {

    private static final Map<String, Object> VARS = Variables.builder()
            .flow("io.kestra.tests", "simple", 1)
            .task("t1", TaskTypes.LOG)
            .inputs(Map.of("name", "world"))
            .build();

    @Test
    void shouldLogRenderedMessageAtInfoByDefault() throws Exception {
        // given
        RecordingLogger logger = new RecordingLogger();

        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("t1", "log", Map.of("message", "hello {{ inputs.name }}"), VARS, logger));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of()));
        assertThat(logger.lines).containsExactly("INFO hello world");
    }

    @Test
    void shouldLogEachMessageOfAListAtTheGivenLevel() throws Exception {
        // given
        RecordingLogger logger = new RecordingLogger();
        Map<String, Object> props = Map.of("message", List.of("one {{ task.id }}", "two", 3), "level", "warn");

        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("t1", TaskTypes.LOG, props, VARS, logger));

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
        assertThat(logger.lines).containsExactly("WARN one t1", "WARN two", "WARN 3");
    }

    @ParameterizedTest
    @CsvSource({"TRACE, TRACE", "debug, DEBUG", "Info, INFO", "WARN, WARN", " error , ERROR"})
    void shouldLogAtEachOfKestrasLevels(String level, String logged) throws Exception {
        // given
        RecordingLogger logger = new RecordingLogger();

        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("t1", "log", Map.of("message", "m", "level", level), VARS, logger));

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
        assertThat(logger.lines).containsExactly(logged + " m");
    }

    @Test
    void shouldFailLogWithoutLoggingWhenAMessageCannotBeRendered() throws Exception {
        // given
        RecordingLogger logger = new RecordingLogger();
        Map<String, Object> props = Map.of("message", List.of("fine", "{{ outputs.missing.value }}"));

        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("t1", "log", props, VARS, logger));

        // then
        assertThat(outcome.state()).isEqualTo(State.FAILED);
        assertThat(outcome.error()).startsWith("Task 't1': property 'message': Unable to render '{{ outputs.missing.value }}': Missing variable: 'outputs'");
        assertThat(logger.lines).isEmpty();
    }

    @Test
    void shouldRejectUnknownLogLevelsAndMissingMessages() throws Exception {
        // when
        TaskOutcome badLevel = Invocations.execute(Invocations.of("t1", "log", Map.of("message", "m", "level", "LOUD"), VARS));
        TaskOutcome noMessage = Invocations.execute(Invocations.of("t1", "log", Map.of(), VARS));

        // then
        assertThat(badLevel.error()).isEqualTo("Task 't1': property 'level' must be one of TRACE, DEBUG, INFO, WARN, ERROR, got 'LOUD'");
        assertThat(noMessage.error()).isEqualTo("Task 't1': property 'message' is required");
    }

    @Test
    void shouldReturnTheRenderedFormat() throws Exception {
        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("r", "return", Map.of("format", "{{ flow.id }}-{{ inputs.name }}"), VARS));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of("value", "simple-world")));
    }

    @Test
    void shouldReturnNoValueWithoutFormat() throws Exception {
        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("r", TaskTypes.RETURN, Map.of(), VARS));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of()));
    }

    @Test
    void shouldOutputRenderedValuesKeepingStructureAndTypes() throws Exception {
        // given
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("greeting", "hi {{ inputs.name }}");
        values.put("count", 2);
        values.put("nested", Map.of("list", List.of("{{ task.id }}", true)));

        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("o", "output-values", Map.of("values", values), VARS));

        // then
        assertThat(outcome.state()).isEqualTo(State.SUCCESS);
        assertThat(outcome.outputs()).isEqualTo(Map.of("values",
                Map.of("greeting", "hi world", "count", 2, "nested", Map.of("list", List.of("t1", true)))));
    }

    @Test
    void shouldFailOutputValuesThatAreNotAMap() throws Exception {
        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("o", TaskTypes.OUTPUT_VALUES, Map.of("values", List.of(1)), VARS));

        // then
        assertThat(outcome.error()).isEqualTo("Task 'o': property 'values' must be a map of names to values");
    }

    @Test
    void shouldSleepForTheRenderedDuration() throws Exception {
        // given
        Map<String, Object> vars = Variables.builder().inputs(Map.of("wait", "PT0.2S")).build();
        long start = System.nanoTime();

        // when
        TaskOutcome outcome = Invocations.execute(Invocations.of("s", "sleep", Map.of("duration", "{{ inputs.wait }}"), vars));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of()));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void shouldFailSleepWithABadDuration() throws Exception {
        // when
        TaskOutcome bad = Invocations.execute(Invocations.of("s", TaskTypes.SLEEP, Map.of("duration", "2 seconds"), VARS));
        TaskOutcome negative = Invocations.execute(Invocations.of("s", TaskTypes.SLEEP, Map.of("duration", "-PT1S"), VARS));
        TaskOutcome missing = Invocations.execute(Invocations.of("s", TaskTypes.SLEEP, Map.of(), VARS));

        // then
        assertThat(bad.error()).isEqualTo("Task 's': property 'duration' is not an ISO-8601 duration such as PT2S: '2 seconds'");
        assertThat(negative.error()).isEqualTo("Task 's': property 'duration' must not be negative, got '-PT1S'");
        assertThat(missing.error()).isEqualTo("Task 's': property 'duration' is required");
    }

    @Test
    void shouldStopSleepingWhenInterrupted() throws Exception {
        // given
        TaskInvocation invocation = Invocations.of("s", TaskTypes.SLEEP, Map.of("duration", "PT1M"), VARS);

        // when / then: it stops at once and says it was interrupted
        assertThat(Invocations.interruptAfter(invocation, Duration.ofMillis(100))).isInstanceOf(InterruptedException.class);
    }

    @Test
    void shouldRejectStructuredValuesForStringProperties() {
        // when / then
        assertThatThrownBy(() -> new ReturnTask().run(Invocations.of("r", "return", Map.of("format", Map.of("a", 1)), VARS)))
                .isInstanceOf(TaskException.class)
                .hasMessage("Task 'r': property 'format' must be a string, got an object");
    }
}
