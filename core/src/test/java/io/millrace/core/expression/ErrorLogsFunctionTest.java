package io.millrace.core.expression;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorLogsFunctionTest {

    /** The Log message of the corpus flow errors, as its YAML block scalar reads (with the trailing new line). */
    private static final String ERRORS_MESSAGE = """
            {%- for log in errorLogs() -%}
            - task: {{ log.taskId }}, message: {{ log.message }}
            {%- endfor -%}
            """;

    private final Expressions expressions = new Expressions();

    private static Map<String, Object> errorLog(String taskId, String message) {
        return Map.of("taskId", taskId, "taskRunId", taskId + "-run", "level", "ERROR", "message", message);
    }

    @Test
    void shouldRenderTheErrorsCorpusMessageOnOneLine() throws Exception {
        // given
        Map<String, Object> vars = Variables.builder().errorLogs(List.of(errorLog("failed", "Task failure"))).build();

        // when
        String rendered = expressions.render(ERRORS_MESSAGE, vars);

        // then
        assertThat(rendered).isEqualTo("- task: failed, message: Task failure");
    }

    @Test
    void shouldJoinSeveralEntriesWithoutTheNewLinesTrimmedAround() throws Exception {
        // given
        Map<String, Object> vars = Variables.builder()
                .errorLogs(List.of(errorLog("a", "first"), errorLog("b", "second")))
                .build();

        // when
        String rendered = expressions.render(ERRORS_MESSAGE, vars);

        // then
        assertThat(rendered).isEqualTo("- task: a, message: first- task: b, message: second");
    }

    @Test
    void shouldGiveAnEmptyListWhenTheEngineSetNone() throws Exception {
        // when / then
        assertThat(expressions.render("{{ errorLogs() }}", Map.of())).isEqualTo("[]");
        assertThat(expressions.render(ERRORS_MESSAGE, Map.of())).isEmpty();
    }
}
