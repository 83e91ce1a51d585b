package io.millrace.core.decide;

import io.millrace.core.flow.Switch;
import io.millrace.core.flow.TaskDef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Switch: the case its value renders to, else its defaults; fails when neither is there. */
final class SwitchBehaviour implements FlowableBehaviour<Switch> {
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
}
