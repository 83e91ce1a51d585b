package io.millrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutputReferencesTest {

    @Test
    void shouldNameTheTasksReadByNameInDottedOrBracketForm() {
        // when
        var ids = OutputReferences.of(List.of("{{ outputs.first.value }} and {{ outputs['1-1_each'].x }}",
                Map.of("nested", List.of("{{ currentEachOutput(outputs[\"other\"]).value }}")), 42));

        // then
        assertThat(ids).containsExactlyInAnyOrder("first", "1-1_each", "other");
    }

    @Test
    void shouldIgnoreAParentsOwnOutputs() {
        // when / then
        assertThat(OutputReferences.of(List.of("{{ parent.outputs.value }} {{ parents[0].outputs.value }}"))).isEmpty();
    }

    @Test
    void shouldReadEveryTaskWhenOutputsIsUsedOtherwise() {
        // when / then
        assertThat(OutputReferences.of(List.of("{{ outputs }}"))).isNull();
        assertThat(OutputReferences.of(List.of("{{ outputs[name].value }}"))).isNull();
        assertThat(OutputReferences.of(List.of("{% for o in outputs %}{{ o }}{% endfor %}"))).isNull();
    }

    @Test
    void shouldFindTheTriggerReadOnlyWhereItIsNamedAsAVariableOfItsOwn() {
        // when / then
        assertThat(OutputReferences.readTrigger(List.of("plain", Map.of("k", List.of("{{ trigger.value }}"))))).isTrue();
        assertThat(OutputReferences.readTrigger(List.of("{{ trigger['value'] | json }}"))).isTrue();
        assertThat(OutputReferences.readTrigger(List.of("{{ trigger }}"))).isTrue();
        assertThat(OutputReferences.readTrigger(List.of("{{ vars.trigger }} {{ outputs.trigger.value }} {{ triggers }}",
                "{{ my_trigger }}", 42))).isFalse();
    }
}
