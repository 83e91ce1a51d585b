package io.millrace.topology;

import io.millrace.config.ExecutorLimits;
import io.millrace.serdes.Json;
import io.millrace.serdes.avro.AttemptRecord;
import io.millrace.serdes.avro.ExecutionRecord;
import io.millrace.serdes.avro.ExecutionSnapshot;
import io.millrace.serdes.avro.TaskRunRecord;
import io.millrace.serdes.avro.TaskRunSnapshot;
import java.util.HashMap;
import java.util.Map;

/**
 * Slims the snapshot of an execution that is being failed for a record over {@code max-record-bytes}, so that the
 * snapshot saying why can be sent: JSON values (outputs, inputs, trigger variables) longer than {@link #KEPT_CHARS}
 * become a marker object, and errors are cut there with a marker. Works on copies: the stored state keeps all of it.
 */
final class Slim {
    /** What is kept whole: an error this long, or a JSON value. */
    static final int KEPT_CHARS = 2_000;

    private Slim() {
    }

    static ExecutionSnapshot snapshot(ExecutionSnapshot snapshot, ExecutorLimits limits) {
        ExecutionSnapshot copy = ExecutionSnapshot.newBuilder(snapshot).build();
        var outputs = new HashMap<String, String>();
        copy.getTaskOutputs().forEach((run, json) -> outputs.put(run, json(json, limits)));
        copy.setTaskOutputs(outputs);
        ExecutionRecord execution = copy.getExecution();
        execution.setInputsJson(json(execution.getInputsJson(), limits));
        execution.setOutputsJson(json(execution.getOutputsJson(), limits));
        execution.setError(text(execution.getError()));
        if (execution.getTrigger() != null) {
            execution.getTrigger().setVariablesJson(json(execution.getTrigger().getVariablesJson(), limits));
        }
        execution.getTaskRuns().forEach(Slim::run);
        return copy;
    }

    static TaskRunSnapshot runSnapshot(TaskRunSnapshot snapshot, ExecutorLimits limits) {
        TaskRunSnapshot copy = TaskRunSnapshot.newBuilder(snapshot).build();
        copy.setOutputsJson(json(copy.getOutputsJson(), limits));
        run(copy.getRun());
        return copy;
    }

    private static void run(TaskRunRecord run) {
        run.setError(text(run.getError()));
        for (AttemptRecord attempt : run.getAttempts()) {
            attempt.setError(text(attempt.getError()));
        }
    }

    /** A JSON value, or when it is longer than {@link #KEPT_CHARS} an object that says it was left out. */
    private static String json(String json, ExecutorLimits limits) {
        if (json == null || json.length() <= KEPT_CHARS) {
            return json;
        }
        return Json.write(Map.of("truncated", json.length() + " characters left out of this snapshot: the execution's"
                + " records were over max-record-bytes (" + limits.maxRecordBytes() + ")"));
    }

    private static String text(String text) {
        if (text == null || text.length() <= KEPT_CHARS) {
            return text;
        }
        return text.substring(0, KEPT_CHARS) + "… [truncated: " + text.length() + " characters in all]";
    }
}
