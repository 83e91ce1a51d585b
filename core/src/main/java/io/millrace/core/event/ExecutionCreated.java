package io.millrace.core.event;

import io.millrace.core.execution.ExecutionTrigger;
import io.millrace.core.execution.Lineage;
import io.millrace.core.execution.Maps;
import java.time.Instant;
import java.util.Map;

/** An execution began; {@code requestedAt} is when its start was asked for (the create's time; null: not known). */
public record ExecutionCreated(
        String executionId,
        String namespace,
        String flowId,
        int flowRevision,
        Map<String, Object> inputs,
        Map<String, String> labels,
        ExecutionTrigger trigger,
        Lineage lineage,
        Instant requestedAt,
        Instant at) implements Event {

    public ExecutionCreated {
        inputs = Maps.immutable(inputs);
        labels = Map.copyOf(labels);
        lineage = lineage == null ? Lineage.FIRST : lineage;
    }
}
