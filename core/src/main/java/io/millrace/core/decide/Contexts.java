package io.millrace.core.decide;

import io.millrace.core.execution.Execution;
import io.millrace.core.execution.TaskRun;
import io.millrace.core.execution.TaskRuns;
import io.millrace.core.expression.Variables;
import io.millrace.core.flow.Flow;
import io.millrace.core.flow.TaskDef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the variables an expression sees, under Kestra's names: {@code inputs}, {@code outputs}, {@code vars},
 * {@code labels}, {@code execution}, {@code flow}, and for a task run {@code task}, {@code taskrun}, {@code parent}
 * and {@code parents}.
 */
public final class Contexts {
    /** The most error entries {@code errorLogs()} lists, the oldest first. */
    static final int MAX_ERROR_LOGS = 25;

    private Contexts() {
    }

    /**
     * Task outputs keyed by task id; the outputs of a run inside loops are nested under the loop values of its
     * enclosing runs, outermost first, then its own value ({@code outputs.t[v1][v2].value}).
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> outputs(Execution execution, ExecutionView view, Set<String> references) {
        var tree = new LinkedHashMap<String, Object>();
        TaskRuns runs = execution.runs();
        Iterable<TaskRun> read = references == null ? runs.list()
                : references.stream().flatMap(taskId -> runs.ofTask(taskId).stream()).toList();
        for (TaskRun run : read) {
            Map<String, Object> values = view.outputs(run.id());
            if (values.isEmpty()) {
                continue;
            }
            List<String> path = new ArrayList<>();
            List<TaskRun> ancestors = runs.ancestors(run);
            for (int i = ancestors.size() - 1; i >= 0; i--) {
                if (ancestors.get(i).value() != null) {
                    path.add(ancestors.get(i).value());
                }
            }
            if (run.value() != null) {
                path.add(run.value());
            }
            if (path.isEmpty()) {
                tree.put(run.taskId(), values);
                continue;
            }
            Object existing = tree.get(run.taskId());
            Map<String, Object> node = existing instanceof LinkedHashMap<?, ?> map ? (Map<String, Object>) map
                    : new LinkedHashMap<>();
            tree.put(run.taskId(), node);
            for (int i = 0; i < path.size() - 1; i++) {
                Object child = node.get(path.get(i));
                if (!(child instanceof LinkedHashMap<?, ?>)) {
                    child = new LinkedHashMap<String, Object>();
                    node.put(path.get(i), child);
                }
                node = (Map<String, Object>) child;
            }
            node.put(path.getLast(), values);
        }
        return tree;
    }

    /**
     * The variables of the execution, without a task (for flow outputs), with the outputs of the tasks named in
     * {@code references} (null: of every task).
     */
    static Variables.Builder execution(Execution execution, ExecutionView view, Flow flow, Set<String> references) {
        return execution(execution, view, flow, references, true);
    }

    private static Variables.Builder execution(Execution execution, ExecutionView view, Flow flow,
            Set<String> references, boolean withTrigger) {
        Variables.Builder builder = Variables.builder()
                .execution(execution.id(), execution.startDate(), execution.lineage().originalId())
                .flow(flow.namespace(), flow.id(), flow.revision())
                .inputs(execution.inputs())
                .put("outputs", outputs(execution, view, references))
                .put("labels", nestedLabels(execution.labels()))
                .errorLogs(errorLogs(execution));
        if (!flow.variables().isEmpty()) {
            builder.vars(flow.variables());
        }
        if (withTrigger && execution.trigger() != null) {
            builder.put("trigger", execution.trigger().variables());
        }
        return builder;
    }

    /** The variables of one task run: what its task's expressions see. */
    static Map<String, Object> taskRun(Execution execution, ExecutionView view, Flow flow, TaskRun run, TaskDef task) {
        return taskRun(execution, view, flow, run, task, true);
    }

    private static Map<String, Object> taskRun(Execution execution, ExecutionView view, Flow flow, TaskRun run,
            TaskDef task, boolean withTrigger) {
        int attemptsBefore = Math.max(0, run.ownAttempts() - (run.state().isTerminal() ? 0 : 1));
        return execution(execution, view, flow, flow.outputReferences(task.id()), withTrigger)
                .task(task.id(), task.type())
                .taskRun(run.id(), run.startDate(), attemptsBefore, run.value(), run.iteration(), run.parentTaskRunId())
                .parents(parents(execution.runs(), view, run))
                .build();
    }

    /**
     * The variables a worker task's attempt sees: the run's, with {@code taskrun.attemptsCount} the attempts before, and
     * {@code trigger} only when its properties name it (a worker renders nothing else): a Kafka record that started the
     * execution goes to the tasks that read it, not with every dispatch.
     */
    public static Map<String, Object> dispatch(Execution execution, ExecutionView view, Flow flow, TaskRun run, TaskDef task) {
        return taskRun(execution, view, flow, run, task, flow.readsTrigger(task.id()));
    }

    /** Kestra's {@code parents}: the enclosing runs with a loop value or outputs, nearest first. */
    private static List<Map<String, Object>> parents(TaskRuns runs, ExecutionView view, TaskRun run) {
        var parents = new ArrayList<Map<String, Object>>();
        for (TaskRun ancestor : runs.ancestors(run)) {
            var parent = new LinkedHashMap<String, Object>();
            if (ancestor.value() != null) {
                parent.put("taskrun", Map.of("value", ancestor.value()));
            }
            Map<String, Object> outputs = view.outputs(ancestor.id());
            if (!outputs.isEmpty()) {
                parent.put("outputs", outputs);
            }
            if (!parent.isEmpty()) {
                parents.add(Collections.unmodifiableMap(parent));
            }
        }
        return parents;
    }

    /**
     * Labels as expressions see them: a dotted key is also reachable by its parts, so {@code system.correlationId}
     * renders as {@code labels.system.correlationId}.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> nestedLabels(Map<String, String> labels) {
        var nested = new LinkedHashMap<String, Object>(labels);
        labels.forEach((key, value) -> {
            String[] parts = key.split("\\.");
            Map<String, Object> node = nested;
            for (int i = 0; i < parts.length - 1 && node != null; i++) {
                Object child = node.computeIfAbsent(parts[i], p -> new LinkedHashMap<String, Object>());
                node = child instanceof Map<?, ?> map ? (Map<String, Object>) map : null;
            }
            if (node != null && parts.length > 1) {
                node.putIfAbsent(parts[parts.length - 1], value);
            }
        });
        return nested;
    }

    /** The errors of the execution's failed task runs, as {@code errorLogs()} lists them. */
    private static List<Map<String, Object>> errorLogs(Execution execution) {
        var logs = new ArrayList<Map<String, Object>>();
        for (TaskRun run : execution.runs().failed()) {
            if (logs.size() == MAX_ERROR_LOGS) {
                break;
            }
            if (run.error() != null) {
                var log = new LinkedHashMap<String, Object>();
                log.put("taskId", run.taskId());
                log.put("taskRunId", run.id());
                log.put("level", "ERROR");
                log.put("message", TaskRun.ownMessage(run.taskId(), run.error()));
                logs.add(log);
            }
        }
        return logs;
    }
}
