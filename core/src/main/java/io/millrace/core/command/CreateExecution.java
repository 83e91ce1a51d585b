package io.millrace.core.command;

import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.Maps;
import java.time.Instant;
import java.util.Map;

/**
 * Start an execution of a flow. {@code revision} null means the latest revision; {@code replay}: what a replay from a
 * task run keeps of the execution it replays, null for any other start.
 */
public record CreateExecution(
        String executionId,
        String namespace,
        String flowId,
        Integer revision,
        Map<String, Object> inputs,
        Map<String, String> labels,
        Instant requestedAt,
        ExecutionTrigger trigger,
        Lineage lineage,
        ReplaySeed replay) implements Command {

    public CreateExecution {
        inputs = Maps.immutable(inputs);
        labels = Map.copyOf(labels);
        lineage = lineage == null ? Lineage.FIRST : lineage;
    }

    /** A start that is no replay from a task run. */
    public CreateExecution(String executionId, String namespace, String flowId, Integer revision,
            Map<String, Object> inputs, Map<String, String> labels, Instant requestedAt, ExecutionTrigger trigger,
            Lineage lineage) {
        this(executionId, namespace, flowId, revision, inputs, labels, requestedAt, trigger, lineage, null);
    }

    /** The first start of an execution (no other execution made it). */
    public CreateExecution(String executionId, String namespace, String flowId, Integer revision,
            Map<String, Object> inputs, Map<String, String> labels, Instant requestedAt, ExecutionTrigger trigger) {
        this(executionId, namespace, flowId, revision, inputs, labels, requestedAt, trigger, Lineage.FIRST, null);
    }

    /** A start that no trigger made (the REST API, a producer of commands). */
    public CreateExecution(String executionId, String namespace, String flowId, Integer revision,
            Map<String, Object> inputs, Map<String, String> labels, Instant requestedAt) {
        this(executionId, namespace, flowId, revision, inputs, labels, requestedAt, null, Lineage.FIRST, null);
    }
}
