package io.millrace.core.decide;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.core.flow.ForEach;
import io.millrace.core.flow.TaskDef;
import java.util.ArrayList;
import java.util.List;

/**
 * ForEach: a lane per value (or, with {@code eachTaskApart}, per value and task), at most {@code concurrencyLimit} at
 * once (0: no limit).
 */
final class ForEachBehaviour implements FlowableBehaviour<ForEach> {
    /** The most iterations a ForEach may have: more fails it, rather than the executor. */
    static final int MAX_ITERATIONS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Plan plan(ForEach task, Scope scope) throws Scope.Failure {
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
