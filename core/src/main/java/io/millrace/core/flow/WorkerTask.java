package io.millrace.core.flow;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A task a worker runs. {@code properties} are its type's own fields, unrendered and checked against the type's
 * spec at parse time; the worker reads them, the engine never does.
 */
public record WorkerTask(String id, String type, TaskOptions options, Map<String, Object> properties) implements TaskDef {

    public WorkerTask {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    public String workerGroup() {
        return options.workerGroup();
    }
}
