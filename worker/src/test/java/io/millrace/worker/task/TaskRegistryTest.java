package io.millrace.worker.task;

import io.millrace.core.flow.TaskTypes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskRegistryTest {

    private final TaskRegistry registry = TaskRegistry.standard();

    @Test
    void shouldImplementEveryRunnableType() {
        // given / when / then: a new type in TaskTypes.RUNNABLE without an implementation breaks the build
        for (String type : TaskTypes.RUNNABLE) {
            assertThat(registry.find(type)).as("implementation of %s", type).isPresent();
        }
        assertThat(registry.types()).containsExactlyInAnyOrderElementsOf(TaskTypes.RUNNABLE);
    }

    @Test
    void shouldResolveEveryAliasOfAWorkerTypeToItsCanonicalImplementation() {
        var workerAliases = TaskTypes.aliases().stream()
                .filter(alias -> TaskTypes.RUNNABLE.contains(TaskTypes.canonical(alias).orElseThrow())).toList();
        assertThat(workerAliases).contains("log", "return");
        for (String alias : workerAliases) {
            // when
            var byAlias = registry.find(alias);

            // then
            assertThat(byAlias).as("implementation of alias %s", alias).isPresent();
            assertThat(byAlias.get()).isSameAs(registry.find(TaskTypes.canonical(alias).orElseThrow()).orElseThrow());
        }
    }

    @Test
    void shouldFindNothingForUnknownTypes() {
        // when / then
        assertThat(registry.find("io.kestra.plugin.scripts.python.Script")).isEmpty();
        assertThat(registry.find(null)).isEmpty();
    }

    @Test
    void shouldFindATypeOfItsOwnByExactlyItsNameAndRefuseAKestraType() {
        // given
        RunnableTask own = invocation -> TaskOutcome.success(null);

        // when
        TaskRegistry extended = registry.with("test.Own", own);

        // then
        assertThat(extended.find("test.Own")).containsSame(own);
        assertThat(extended.find("test.own")).isEmpty();
        assertThat(extended.find("log")).containsSame(registry.find("log").orElseThrow());
        assertThat(registry.find("test.Own")).isEmpty();
        assertThatThrownBy(() -> registry.with("log", own)).hasMessageContaining("'log' is a Kestra type");
    }
}
