package io.millrace.core.flow;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A parsed, validated flow at one revision. {@code source} is the YAML it was parsed from, kept so the flow can be
 * stored and re-parsed anywhere. Task ids are unique in the whole flow, so a task is found by its id at any depth;
 * the flow's own {@code tasks}, {@code errors} and {@code finally} form its root, which behaves as a Sequential.
 */
public record Flow(
        String namespace,
        String id,
        int revision,
        Map<String, String> labels,
        List<InputDef> inputs,
        List<TaskDef> tasks,
        List<TaskDef> errors,
        List<TaskDef> finallyTasks,
        List<OutputDef> outputs,
        Map<String, Object> variables,
        List<TriggerDef> triggers,
        boolean disabled,
        String source,
        Index index,
        Concurrency concurrency) {

    public Flow {
        labels = Map.copyOf(labels);
        inputs = List.copyOf(inputs);
        tasks = List.copyOf(tasks);
        errors = List.copyOf(errors);
        finallyTasks = List.copyOf(finallyTasks);
        outputs = List.copyOf(outputs);
        triggers = List.copyOf(triggers);
        variables = variables == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        if (index == null) {
            index = Index.of(Stream.of(tasks, errors, finallyTasks).flatMap(List::stream).toList());
        }
    }

    public Flow(String namespace, String id, int revision, Map<String, String> labels, List<InputDef> inputs,
            List<TaskDef> tasks, List<TaskDef> errors, List<TaskDef> finallyTasks, List<OutputDef> outputs,
            Map<String, Object> variables, List<TriggerDef> triggers, boolean disabled, String source) {
        this(namespace, id, revision, labels, inputs, tasks, errors, finallyTasks, outputs, variables, triggers, disabled,
                source, null, null);
    }

    public String key() {
        return key(namespace, id);
    }

    public static String key(String namespace, String id) {
        return namespace + "/" + id;
    }

    /** This revision, disabled. */
    public Flow withDisabled() {
        return new Flow(namespace, id, revision, labels, inputs, tasks, errors, finallyTasks, outputs, variables,
                triggers, true, source, index, concurrency);
    }

    public Flow withRevision(int newRevision) {
        return new Flow(namespace, id, newRevision, labels, inputs, tasks, errors, finallyTasks, outputs, variables,
                triggers, disabled, source, index, concurrency);
    }

    /** The label that ties executions started from one another together; a new execution's own id by default. */
    public static final String CORRELATION_ID = "system.correlationId";

    /**
     * A new execution's labels: the flow's, overridden by those given when it was started, and
     * {@value #CORRELATION_ID} (its own id unless given).
     */
    public Map<String, String> executionLabels(Map<String, String> given, String executionId) {
        var merged = new LinkedHashMap<>(labels);
        merged.putAll(given);
        merged.putIfAbsent(CORRELATION_ID, executionId);
        return merged;
    }

    /** Every task declared anywhere in the flow, at any depth, parents before their children. */
    public Stream<TaskDef> allTasks() {
        return index.byId.values().stream();
    }

    /** The task with this id, at any depth. */
    public Optional<TaskDef> task(String taskId) {
        return Optional.ofNullable(index.byId.get(taskId));
    }

    /** The flowable a task is declared in, or empty for the flow's own tasks. */
    public Optional<Flowable> parentOf(String taskId) {
        return Optional.ofNullable(index.parents.get(taskId));
    }

    /**
     * The ids of the tasks whose outputs a task's expressions read, or null when they may read any (see
     * {@link OutputReferences}).
     */
    public Set<String> outputReferences(String taskId) {
        return index.references.get(taskId).orElse(null);
    }

    /** Whether a task's expressions may read the {@code trigger} variable (see {@link OutputReferences}). */
    public boolean readsTrigger(String taskId) {
        return index.triggerReaders.contains(taskId);
    }

    /** The ids of the tasks whose outputs the flow's {@code outputs} read, or null when they may read any. */
    public Set<String> outputReferences() {
        return OutputReferences.of(outputs.stream().map(OutputDef::value).toList());
    }

    /**
     * Tasks by id, the flowable each one is declared in, whose outputs each reads and which read the trigger; built
     * once per revision.
     */
    public static final class Index {
        private final Map<String, TaskDef> byId;
        private final Map<String, Flowable> parents;
        private final Map<String, Optional<Set<String>>> references = new HashMap<>();
        private final Set<String> triggerReaders = new HashSet<>();

        private Index(Map<String, TaskDef> byId, Map<String, Flowable> parents) {
            this.byId = Collections.unmodifiableMap(byId);
            this.parents = Collections.unmodifiableMap(parents);
            byId.forEach((id, task) -> {
                List<Object> expressions = expressions(task);
                references.put(id, Optional.ofNullable(OutputReferences.of(expressions)));
                if (OutputReferences.readTrigger(expressions)) {
                    triggerReaders.add(id);
                }
            });
        }

        /** The texts a task renders: a worker task's properties, a flowable's own expressions, its runIf. */
        private static List<Object> expressions(TaskDef task) {
            var texts = new java.util.ArrayList<Object>();
            texts.add(task.options().runIf());
            switch (task) {
                case WorkerTask worker -> texts.addAll(worker.properties().values());
                case ForEach forEach -> texts.add(forEach.values());
                case If branch -> texts.add(branch.condition());
                case Switch choice -> texts.add(choice.value());
                case Sequential sequential -> {
                }
                case Parallel parallel -> {
                }
                case AllowFailure allowFailure -> {
                }
                case Pause pause -> {
                }
                case Subflow subflow -> {
                    texts.add(subflow.inputs());
                    texts.addAll(subflow.labels().values());
                }
            }
            return texts;
        }

        static Index of(List<TaskDef> top) {
            var byId = new LinkedHashMap<String, TaskDef>();
            var parents = new HashMap<String, Flowable>();
            var queue = new ArrayDeque<TaskDef>(top);
            while (!queue.isEmpty()) {
                TaskDef task = queue.poll();
                byId.putIfAbsent(task.id(), task);
                if (task instanceof Flowable flowable) {
                    for (TaskDef child : flowable.children()) {
                        parents.put(child.id(), flowable);
                        queue.add(child);
                    }
                }
            }
            return new Index(byId, parents);
        }

        /** Derived from the flow's tasks, which the flow compares already: no part of a flow's equality. */
        @Override
        public boolean equals(Object other) {
            return other instanceof Index;
        }

        @Override
        public int hashCode() {
            return 0;
        }
    }
}
