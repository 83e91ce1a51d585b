package io.millrace.core.decide;

import io.millrace.core.flow.Flow;

/** Finds flows other than the execution's own (a subflow's child, a child's parent), by revision (null: the latest). */
@FunctionalInterface
public interface FlowSource {
    /** Finds none: for a decider that starts no subflows. */
    FlowSource NONE = (namespace, id, revision) -> null;

    /** @return the flow, or null when there is none */
    Flow find(String namespace, String id, Integer revision);
}
