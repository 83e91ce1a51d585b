package io.millrace.worker.task;

import io.millrace.serdes.HttpTargets;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.millrace.config.MillraceConfig;
import io.millrace.config.WorkerLimits;
import io.millrace.serdes.FlowKafkaReach;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.TaskTypes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TransformValueTaskTest {

    private static final String HEAVY = "$sum([1..5000].($sum([1..5000].($ * 2))))";

    /** The JSON-transform flow of the foundation issue. */
    private static final String FOUNDATION_FLOW = """
            id: json-transform
            namespace: company.team
            inputs:
              - id: order
                type: JSON
            tasks:
              - id: transform
                type: io.kestra.plugin.transform.jsonata.TransformValue
                from: "{{ inputs.order }}"
                expression: |
                  {
                    "order_id": order_id,
                    "customer_name": first_name & ' ' & last_name,
                    "address": address.city & ', ' & address.country,
                    "total_price": $sum(items.(quantity * price_per_unit))
                  }
              - id: output
                type: io.kestra.plugin.core.output.OutputValues
                values:
                  log: "{{ outputs.transform.value }}"
            """;

    private static final String ORDER = """
            {"order_id": 1, "first_name": "John", "last_name": "Doe",
             "address": {"city": "Paris", "country": "France"},
             "items": [{"product_id": 1, "name": "Apple", "quantity": 5, "price_per_unit": 0.5},
                       {"product_id": 2, "name": "Pear", "quantity": 3, "price_per_unit": 0.3},
                       {"product_id": 3, "name": "Plum", "quantity": 2, "price_per_unit": 0.4}]}
            """;

    private static TaskOutcome transform(Map<String, Object> props, Map<String, Object> vars) throws InterruptedException {
        return Invocations.execute(Invocations.of("t", TaskTypes.TRANSFORM_VALUE, props, vars));
    }

    private static TaskOutcome transform(Map<String, Object> props) throws InterruptedException {
        return transform(props, Map.of());
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldRunTheFoundationJsonTransformFlow() throws Exception {
        // given: the flow as written, and the JSON input as typed inputs deliver it (parsed)
        Map<String, Object> flow = new YAMLMapper().readValue(FOUNDATION_FLOW, Map.class);
        List<Map<String, Object>> tasks = (List<Map<String, Object>>) flow.get("tasks");
        Map<String, Object> order = new ObjectMapper().readValue(ORDER, Map.class);
        Variables.Builder vars = Variables.builder().flow("company.team", "json-transform", 1).inputs(Map.of("order", order));

        // when
        TaskOutcome transformed = Invocations.execute(invocation(tasks.get(0), vars.build()));
        TaskOutcome output = Invocations.execute(invocation(tasks.get(1),
                vars.outputs(Map.of("transform", transformed.outputs())).build()));

        // then
        assertThat(transformed.state()).isEqualTo(State.SUCCESS);
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("order_id", 1);
        expected.put("customer_name", "John Doe");
        expected.put("address", "Paris, France");
        expected.put("total_price", 4.2);
        assertThat(transformed.outputs()).isEqualTo(Map.of("value", expected));
        assertThat(output.state()).isEqualTo(State.SUCCESS);
        assertThat(output.outputs()).isEqualTo(Map.of("values", Map.of("log",
                "{\"order_id\":1,\"customer_name\":\"John Doe\",\"address\":\"Paris, France\",\"total_price\":4.2}")));
    }

    @Test
    void shouldParseAStringInputAsJson() throws Exception {
        // given: an untyped input holding JSON text
        Map<String, Object> vars = Variables.builder().inputs(Map.of("order", ORDER)).build();

        // when
        TaskOutcome outcome = transform(Map.of("from", "{{ inputs.order }}", "expression", "address.city"), vars);

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of("value", "Paris")));
    }

    @Test
    void shouldUseAYamlValueAsIs() throws Exception {
        // given
        Map<String, Object> props = Map.of("from", Map.of("items", List.of(1, 2, "{{ 1 + 2 }}")), "expression", "items");

        // when
        TaskOutcome outcome = transform(props);

        // then: strings inside are rendered; "3" stays a string
        assertThat(outcome.outputs()).isEqualTo(Map.of("value", List.of(1, 2, "3")));
    }

    @Test
    void shouldReturnPlainCollectionsWithoutFlatteningNestedArrays() throws Exception {
        // when
        TaskOutcome outcome = transform(Map.of("from", "{}", "expression", "[[1, 2], [3], [{'a': [null]}]]"));

        // then
        Object value = outcome.outputs().get("value");
        assertThat(value).isEqualTo(List.of(List.of(1, 2), List.of(3), List.of(Map.of("a", listOfNull()))));
        assertThat(value).isExactlyInstanceOf(ArrayList.class);
        assertThat(((List<?>) value).get(0)).isExactlyInstanceOf(ArrayList.class);
    }

    @Test
    void shouldGiveNoValueForANothingResult() throws Exception {
        // when
        TaskOutcome outcome = transform(Map.of("from", "{\"a\": 1}", "expression", "b"));

        // then
        assertThat(outcome).isEqualTo(TaskOutcome.success(Map.of()));
    }

    @Test
    void shouldFailOnInvalidJson() throws Exception {
        // when
        TaskOutcome outcome = transform(Map.of("from", "{\"a\": 1} trailing", "expression", "a"));

        // then
        assertThat(outcome.state()).isEqualTo(State.FAILED);
        assertThat(outcome.error()).startsWith("Task 't': property 'from' is not valid JSON");
    }

    @Test
    void shouldFailOnRenderErrorsInFrom() throws Exception {
        // when
        TaskOutcome outcome = transform(Map.of("from", "{{ inputs.order }}", "expression", "a"));

        // then
        assertThat(outcome.error()).isEqualTo("Task 't': property 'from': Unable to render '{{ inputs.order }}': Missing variable: 'inputs' at line 1");
    }

    @Test
    void shouldFailOnJsonataSyntaxAndEvaluationErrors() throws Exception {
        // when
        TaskOutcome syntax = transform(Map.of("from", "{}", "expression", "{ broken"));
        TaskOutcome evaluation = transform(Map.of("from", "{}", "expression", "1/0"));
        TaskOutcome function = transform(Map.of("from", "{}", "expression", "function($x) { $x }"));

        // then
        assertThat(syntax.error()).isEqualTo("Task 't': invalid JSONata expression: Expected \":\" before end of expression (code S0203, position 8)");
        assertThat(evaluation.error()).isEqualTo("Task 't': JSONata evaluation failed: Number out of range: \"Infinity\" (code D1001, position 0)");
        assertThat(function.error()).startsWith("Task 't': JSONata result is not JSON");
    }

    @Test
    void shouldFailWhenTheTimeoutIsExceeded() throws Exception {
        // given
        long start = System.nanoTime();

        // when
        TaskOutcome outcome = transform(Map.of("from", "{}", "expression", HEAVY, "timeout", "PT0.2S"));

        // then
        assertThat(outcome.error()).isEqualTo("Task 't': JSONata evaluation failed: Expression evaluation timeout: Check for"
                + " infinite loop (limit: property 'timeout' PT0.2S)");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void shouldFailWhenMaxDepthIsExceeded() throws Exception {
        // given: non-tail recursion 200 deep
        String recursion = "( $f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(200) )";

        // when
        TaskOutcome bounded = transform(Map.of("from", "{}", "expression", recursion, "maxDepth", 50));
        TaskOutcome byDefault = transform(Map.of("from", "{}", "expression", recursion));

        // then
        assertThat(bounded.error()).startsWith("Task 't': JSONata evaluation failed: Stack overflow error")
                .endsWith("(limit: property 'maxDepth' 50)");
        assertThat(byDefault).isEqualTo(TaskOutcome.success(Map.of("value", 200)));
    }

    @Test
    void shouldBoundTimeAndDepthByTheWorkersCeilingsWhateverTheTaskAsks() throws Exception {
        // given: ceilings of 0.2 s and a depth of 50; a function that calls itself for ever (a tail call: no depth)
        RunnableTask capped = TaskRegistry.standard(new WorkerLimits(Duration.ofHours(1), Duration.ofMillis(200), 50, 4),
                        HttpTargets.forStandalone(MillraceConfig.defaults()), FlowKafkaReach.of(MillraceConfig.defaults()))
                .find(TaskTypes.TRANSFORM_VALUE).orElseThrow();
        String forever = "( $f := function($x){ $f($x) }; $f(1) )";
        String recursion = "( $f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(200) )";

        // when
        TaskOutcome endless = capped.execute(Invocations.of("t", TaskTypes.TRANSFORM_VALUE,
                Map.of("from", "{}", "expression", forever, "timeout", "PT10M"), Map.of()));
        TaskOutcome deep = capped.execute(Invocations.of("t", TaskTypes.TRANSFORM_VALUE,
                Map.of("from", "{}", "expression", recursion, "maxDepth", 5000), Map.of()));

        // then
        assertThat(endless.error()).isEqualTo("Task 't': JSONata evaluation failed: Expression evaluation timeout: Check"
                + " for infinite loop (limit: the worker's jsonata-max-duration PT0.2S)");
        assertThat(deep.error()).startsWith("Task 't': JSONata evaluation failed: Stack overflow error")
                .endsWith("(limit: the worker's jsonata-max-depth 50)");
    }

    @Test
    void shouldFailAMapOverAGiantRangeAtTheLibrarysRangeLimit() throws Exception {
        // when
        TaskOutcome outcome = transform(Map.of("from", "{}",
                "expression", "$count($map([1..100000000], function($v){ $v * 2 }))"));

        // then
        assertThat(outcome.error()).startsWith("Task 't': JSONata evaluation failed: The size of the sequence allocated"
                + " by the range operator (..) must not exceed 1e6.");
    }

    @Test
    void shouldFailOnBadBounds() throws Exception {
        // when
        TaskOutcome depth = transform(Map.of("from", "{}", "expression", "1", "maxDepth", "deep"));
        TaskOutcome timeout = transform(Map.of("from", "{}", "expression", "1", "timeout", "10s"));

        // then
        assertThat(depth.error()).isEqualTo("Task 't': property 'maxDepth' must be an integer, got 'deep'");
        assertThat(timeout.error()).isEqualTo("Task 't': property 'timeout' is not an ISO-8601 duration such as PT2S: '10s'");
    }

    @Test
    void shouldStopEvaluatingWhenInterrupted() throws Exception {
        // given
        TaskInvocation invocation = Invocations.of("t", "jsonata", Map.of("from", "{}", "expression", HEAVY, "timeout", "PT20S"), Map.of());

        // when / then: it stops at once and says it was interrupted
        assertThat(Invocations.interruptAfter(invocation, Duration.ofMillis(200))).isInstanceOf(InterruptedException.class);
    }

    private static List<Object> listOfNull() {
        List<Object> list = new ArrayList<>();
        list.add(null);
        return list;
    }

    /** An invocation for one task map of a flow: id, type, and the other keys as properties. */
    static TaskInvocation invocation(Map<String, Object> task, Map<String, Object> vars) {
        Map<String, Object> props = new LinkedHashMap<>(task);
        String id = (String) props.remove("id");
        String type = (String) props.remove("type");
        return Invocations.of(id, type, props, vars);
    }
}
