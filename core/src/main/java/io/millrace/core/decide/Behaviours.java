package io.millrace.core.decide;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.core.execution.State;
import io.millrace.core.expression.Truth;
import io.millrace.core.flow.AllowFailure;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.ForEach;
import io.millrace.core.flow.If;
import io.millrace.core.flow.Parallel;
import io.millrace.core.flow.Sequential;
import io.millrace.core.flow.Switch;
import io.millrace.core.flow.TaskDef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The registry of flowable behaviours, one per flowable type. */
final class Behaviours {
    /** The most iterations a ForEach may have: more fails it, rather than the executor. */
    static final int MAX_ITERATIONS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<Class<? extends Flowable>, FlowableBehaviour<? extends Flowable>> byType = new HashMap<>();

    Behaviours() {
        register(Sequential.class, (task, scope) -> Plan.sequence(task.tasks()));
        register(Parallel.class, (task, scope) -> Plan.eachApart(task.tasks(), task.concurrent()));
        register(AllowFailure.class, new FlowableBehaviour<>() {
            @Override
            public Plan plan(AllowFailure task, Scope scope) {
                return Plan.sequence(task.tasks());
            }

            @Override
            public State outcome(AllowFailure task, State guessed) {
                return guessed.isFailure() ? State.WARNING : guessed;
            }
        });
        register(If.class, (task, scope) ->
                Plan.sequence(Truth.isTruthy(scope.render(task.condition())) ? task.then() : task.otherwise()));
        register(Switch.class, new FlowableBehaviour<>() {
            @Override
            public Plan plan(Switch task, Scope scope) throws Scope.Failure {
                String value = scope.render(task.value());
                List<TaskDef> chosen = task.cases().get(value);
                if (chosen == null && task.defaults() == null) {
                    throw new Scope.Failure("Switch value '" + value + "' matches none of the cases "
                            + task.cases().keySet() + " and there are no defaults");
                }
                return Plan.sequence(chosen != null ? chosen : task.defaults());
            }

            @Override
            public Map<String, Object> outputs(Switch task, Scope scope) throws Scope.Failure {
                String value = scope.render(task.value());
                var outputs = new LinkedHashMap<String, Object>();
                outputs.put("value", value);
                outputs.put("defaults", !task.cases().containsKey(value));
                return outputs;
            }
        });
        register(ForEach.class, (task, scope) -> {
            List<String> values = values(task, scope);
            var lanes = new ArrayList<Plan.Lane>();
            for (int i = 0; i < values.size(); i++) {
                if (task.eachTaskApart()) {
                    for (TaskDef child : task.tasks()) {
                        if (!child.disabled()) {
                            lanes.add(new Plan.Lane(List.of(new Plan.Child(child, values.get(i), i))));
                        }
                    }
                } else {
                    lanes.add(Plan.lane(task.tasks(), values.get(i), i));
                }
            }
            return new Plan(lanes, task.concurrencyLimit());
        });
    }

    private <F extends Flowable> void register(Class<F> type, FlowableBehaviour<F> behaviour) {
        byType.put(type, behaviour);
    }

    @SuppressWarnings("unchecked")
    <F extends Flowable> FlowableBehaviour<F> of(F task) {
        var behaviour = (FlowableBehaviour<F>) byType.get(task.getClass());
        if (behaviour == null) {
            throw new IllegalStateException("Expected a behaviour for " + task.type() + ", but none is registered");
        }
        return behaviour;
    }

    /**
     * A ForEach's values as the strings its iterations see: a list (each string item rendered, objects as JSON), or a
     * string rendering to a JSON array.
     */
    private static List<String> values(ForEach task, Scope scope) throws Scope.Failure {
        List<?> items;
        if (task.values() instanceof String template) {
            String rendered = scope.render(template);
            try {
                Object parsed = JSON.readValue(rendered, Object.class);
                if (!(parsed instanceof List<?> list)) {
                    throw new Scope.Failure("Expected the values of '" + task.id() + "' to render to a JSON array, but got: "
                            + abbreviate(rendered));
                }
                items = list;
            } catch (JsonProcessingException e) {
                throw new Scope.Failure("Expected the values of '" + task.id() + "' to render to a JSON array, but got: "
                        + abbreviate(rendered));
            }
        } else {
            items = (List<?>) scope.renderDeep(task.values());
        }
        if (items.size() > MAX_ITERATIONS) {
            throw new Scope.Failure("'" + task.id() + "' has " + items.size() + " values, more than the "
                    + MAX_ITERATIONS + " iterations a ForEach may have");
        }
        var values = new ArrayList<String>(items.size());
        for (Object item : items) {
            if (item == null) {
                throw new Scope.Failure("Expected no null among the values of '" + task.id() + "', but found one");
            }
            try {
                values.add(item instanceof String s ? s : JSON.writeValueAsString(item));
            } catch (JsonProcessingException e) {
                throw new Scope.Failure("Unable to write a value of '" + task.id() + "' as JSON: " + e.getOriginalMessage());
            }
        }
        return values;
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
