package io.millrace.gateway;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.millrace.core.flow.AllowFailure;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.ForEach;
import io.millrace.core.flow.If;
import io.millrace.core.flow.Parallel;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.Sequential;
import io.millrace.core.flow.Switch;
import io.millrace.core.flow.TaskDef;
import io.millrace.serdes.Json;
import java.util.List;

/**
 * A flow's topology as the API shows it ({@code GET /api/v1/flows/{namespace}/{id}/graph}): the flow, then each task,
 * as nested branches.
 *
 * <pre>
 * flow   {id, type: "flow", namespace, revision, branches}
 * node   {id, type, disabled: true (only when disabled), concurrencyLimit (ForEach only), branches (flowables only)}
 * branch {name, parallel: true (only when its tasks run side by side), tasks: [node]}
 * </pre>
 * Branch names: {@code tasks}; an If's {@code then} and {@code else}; a Switch's {@code case <value>} for each case, then
 * {@code defaults}; then, on every flowable and on the flow, {@code errors} and {@code finally}. A branch without tasks
 * is left out. A ForEach's tasks run one after the other within an iteration, so its branch is parallel only when each
 * task runs apart (EachParallel); how many iterations run at once is its {@code concurrencyLimit} (0: all).
 */
final class FlowGraph {
    private FlowGraph() {
    }

    static ObjectNode of(Flow flow) {
        ObjectNode json = Json.MAPPER.createObjectNode().put("id", flow.id()).put("type", "flow")
                .put("namespace", flow.namespace()).put("revision", flow.revision());
        ArrayNode branches = json.putArray("branches");
        branch(branches, "tasks", false, flow.tasks());
        branch(branches, "errors", false, flow.errors());
        branch(branches, "finally", false, flow.finallyTasks());
        return json;
    }

    private static ObjectNode node(TaskDef task) {
        ObjectNode json = Json.MAPPER.createObjectNode().put("id", task.id()).put("type", task.type());
        if (task.disabled()) {
            json.put("disabled", true);
        }
        if (task instanceof Flowable flowable) {
            if (flowable instanceof ForEach forEach) {
                json.put("concurrencyLimit", forEach.concurrencyLimit());
            }
            ArrayNode branches = json.putArray("branches");
            mainBranches(branches, flowable);
            branch(branches, "errors", false, flowable.errors());
            branch(branches, "finally", false, flowable.finallyTasks());
        }
        return json;
    }

    private static void mainBranches(ArrayNode branches, Flowable flowable) {
        switch (flowable) {
            case Sequential sequential -> branch(branches, "tasks", false, sequential.tasks());
            case Parallel parallel -> branch(branches, "tasks", parallel.concurrent() != 1, parallel.tasks());
            case ForEach forEach -> branch(branches, "tasks",
                    forEach.eachTaskApart() && forEach.concurrencyLimit() != 1, forEach.tasks());
            case If choice -> {
                branch(branches, "then", false, choice.then());
                branch(branches, "else", false, choice.otherwise());
            }
            case Switch choice -> {
                choice.cases().forEach((value, tasks) -> branch(branches, "case " + value, false, tasks));
                branch(branches, "defaults", false, choice.defaults() == null ? List.of() : choice.defaults());
            }
            case AllowFailure allowFailure -> branch(branches, "tasks", false, allowFailure.tasks());
            case Pause pause -> branch(branches, "tasks", false, pause.tasks());
        }
    }

    private static void branch(ArrayNode branches, String name, boolean parallel, List<TaskDef> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        ObjectNode branch = branches.addObject().put("name", name);
        if (parallel) {
            branch.put("parallel", true);
        }
        ArrayNode nodes = branch.putArray("tasks");
        tasks.forEach(task -> nodes.add(node(task)));
    }
}
