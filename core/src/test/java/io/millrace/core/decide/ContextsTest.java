package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.execution.ExecutionTrigger;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContextsTest {

    @Test
    void shouldGiveTheTriggerOnlyToTheWorkerTasksWhosePropertiesNameIt() {
        // given: an execution a Kafka record started, and two tasks: one reads the record, the next its output
        var driver = ExecutionDriver.flow("""
                id: f
                namespace: io.millrace.tests
                tasks:
                  - {id: transform, type: return, format: "{{ trigger.value }}"}
                  - {id: hello, type: return, format: "{{ outputs.transform.value }} {{ vars.trigger }}"}
                """);
        driver.create(new ExecutionTrigger("kafka-logs", "io.kestra.plugin.kafka.RealtimeTrigger",
                Map.of("value", "{\"order_id\": 1}", "topic", "orders")));
        driver.succeed("transform", Map.of("value", "{\"order_id\": 1}"));

        // when
        Map<String, Object> transform = Contexts.dispatch(driver.execution(), driver.state(), driver.flow(),
                driver.runOf("transform"), driver.flow().task("transform").orElseThrow());
        Map<String, Object> hello = Contexts.dispatch(driver.execution(), driver.state(), driver.flow(),
                driver.runOf("hello"), driver.flow().task("hello").orElseThrow());

        // then: the record goes to the task that reads it; the other still sees the rest of the execution
        assertThat(transform).containsEntry("trigger", Map.of("value", "{\"order_id\": 1}", "topic", "orders"));
        assertThat(hello).doesNotContainKey("trigger").containsKeys("execution", "flow", "outputs", "task", "taskrun");
        assertThat(Contexts.taskRun(driver.execution(), driver.state(), driver.flow(), driver.runOf("hello"),
                driver.flow().task("hello").orElseThrow())).as("the executor's own renders").containsKey("trigger");
    }
}
