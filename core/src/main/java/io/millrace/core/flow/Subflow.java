package io.millrace.core.flow;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Starts an execution of another flow, the child, and (with {@code waits}, Kestra's {@code wait}) ends as it ends: the executor runs it
 * itself, with no worker. {@code revision} null is the child's latest; {@code inputs} and {@code labels} are rendered
 * in the run's context; {@code outputs} are rendered in the child's context when the child's flow declares none.
 * With {@code transmitFailed}, a child that ends FAILED, KILLED or WARNING ends the run so; with
 * {@code inheritLabels} the child gets every label of this execution, else only its system labels.
 */
public record Subflow(String id, String type, TaskOptions options, String namespace, String flowId, Integer revision,
        Map<String, Object> inputs, Map<String, String> labels, boolean waits, boolean transmitFailed,
        boolean inheritLabels, Map<String, Object> outputs) implements TaskDef {

    public Subflow {
        inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        outputs = Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
    }
}
