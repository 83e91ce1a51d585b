package io.millrace.triggers;

import io.millrace.core.flow.TriggerDef;

/** One trigger of one flow, as the flow's latest revision declares it. */
record FlowTrigger(String namespace, String flowId, TriggerDef trigger) {

    /** {@code namespace/flowId/triggerId}: the trigger's identity across revisions. */
    String key() {
        return namespace + "/" + flowId + "/" + trigger.id();
    }
}
