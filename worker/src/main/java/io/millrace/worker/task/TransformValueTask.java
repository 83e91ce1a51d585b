package io.millrace.worker.task;

import com.dashjoin.jsonata.JException;
import com.dashjoin.jsonata.Jsonata;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * io.kestra.plugin.transform.jsonata.TransformValue: evaluates the JSONata {@code expression} (rendered) over
 * {@code from} (rendered; a string result is parsed as JSON, a YAML map or list is used as-is) and outputs
 * {@code value}: plain JSON-compatible Java (Map, List, String, Number, Boolean, null). A JSONata "nothing"
 * result gives no {@code value} output (Kestra drops null outputs).
 * <p>
 * {@code maxDepth} (default 1000, Kestra's) and {@code timeout} (ISO-8601, default PT10S) bound the evaluation through
 * the library's own runtime bounds ({@code Frame.setRuntimeBounds}), each at most the worker's ceiling
 * ({@code jsonata-max-depth}, {@code jsonata-max-duration}): a flow is user input. A run that reaches a bound fails
 * with a message naming it. An interruption is checked at every evaluation step too, so a cancelled run stops promptly.
 */
final class TransformValueTask implements RunnableTask {

    static final int DEFAULT_MAX_DEPTH = 1000;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /** Name under which Frame.setEvaluateEntryCallback binds its callback (library detail, see wrapInterruption). */
    private static final String ENTRY_CALLBACK_BINDING = "__evaluate_entry";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final Duration maxDuration;
    private final int maxDepth;

    /**
     * @param maxDuration the longest any evaluation runs ({@code jsonata-max-duration})
     * @param maxDepth the deepest any evaluation nests ({@code jsonata-max-depth})
     */
    TransformValueTask(Duration maxDuration, int maxDepth) {
        this.maxDuration = maxDuration;
        this.maxDepth = maxDepth;
    }

    /** The bounds of one evaluation, each with the words that name it when it is reached. */
    private record Bounds(Duration time, String timeName, int depth, String depthName) {
    }

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException, InterruptedException {
        TaskProperties props = new TaskProperties(invocation);
        Object data = data(props);
        String expression = props.requiredString("expression");
        Bounds bounds = bounds(props, invocation.properties());

        Object result = evaluate(props, expression, data, bounds);
        Object value = plain(props, result);
        Map<String, Object> outputs = new LinkedHashMap<>();
        if (value != null) {
            outputs.put("value", value);
        }
        return TaskOutcome.success(outputs);
    }

    private static Object data(TaskProperties props) throws TaskException {
        props.required("from");
        Object from = props.deep("from");
        if (!(from instanceof String text)) {
            return from;
        }
        if (text.startsWith("kestra://")) {
            throw props.problem("property 'from' is an internal-storage URI, which is not supported; give JSON text or a value");
        }
        try {
            return JSON.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw props.problem("property 'from' is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    private Bounds bounds(TaskProperties props, Map<String, Object> properties) throws TaskException {
        Duration time = props.duration("timeout", DEFAULT_TIMEOUT);
        int depth = props.positiveInt("maxDepth", DEFAULT_MAX_DEPTH);
        String timeName = time.compareTo(maxDuration) > 0 ? "the worker's jsonata-max-duration " + maxDuration
                : properties.containsKey("timeout") ? "property 'timeout' " + time : "the default timeout " + time;
        String depthName = depth > maxDepth ? "the worker's jsonata-max-depth " + maxDepth
                : properties.containsKey("maxDepth") ? "property 'maxDepth' " + depth : "the default maxDepth " + depth;
        return new Bounds(time.compareTo(maxDuration) > 0 ? maxDuration : time, timeName, Math.min(depth, maxDepth),
                depthName);
    }

    private static Object evaluate(TaskProperties props, String expression, Object data, Bounds bounds)
            throws TaskException, InterruptedException {
        Jsonata jsonata;
        try {
            jsonata = Jsonata.jsonata(expression);
        } catch (JException e) {
            throw props.problem("invalid JSONata expression: " + describe(e), e);
        }
        Jsonata.Frame frame = jsonata.createFrame();
        frame.setRuntimeBounds(Math.max(1, bounds.time().toMillis()), bounds.depth());
        wrapInterruption(frame);
        Object result;
        try {
            result = jsonata.evaluate(data, frame);
        } catch (RuntimeException e) {
            // the library may wrap our Interrupted: the thread's flag is what tells a cancellation
            throwIfInterrupted();
            throw props.problem("JSONata evaluation failed: "
                    + (e instanceof JException jsonataError ? describe(jsonataError) + reached(jsonataError, bounds)
                    : e.toString()), e);
        } catch (StackOverflowError e) {
            throw props.problem("JSONata evaluation failed: the thread's stack ran out before " + bounds.depthName()
                    + " was reached; a smaller maxDepth fails with a clearer message");
        }
        throwIfInterrupted();
        return result;
    }

    private static void throwIfInterrupted() throws InterruptedException {
        if (Thread.interrupted()) { // clears the flag, as Thread.sleep does when it throws
            throw new InterruptedException("JSONata evaluation interrupted");
        }
    }

    /**
     * setRuntimeBounds installs the library's time/depth checker as the frame's entry callback; we chain an
     * interruption check in front of it. If a library version binds it differently, the bounds still apply
     * and interruption is only seen when evaluation ends (at most the timeout later).
     */
    private static void wrapInterruption(Jsonata.Frame frame) {
        if (frame.lookup(ENTRY_CALLBACK_BINDING) instanceof Jsonata.EntryCallback bounds) {
            frame.setEvaluateEntryCallback((expr, input, environment) -> {
                if (Thread.currentThread().isInterrupted()) {
                    throw new Interrupted();
                }
                bounds.callback(expr, input, environment);
            });
        }
    }

    /** Which bound the library's runaway check reached (it tells them apart by message only), if it was one. */
    private static String reached(JException e, Bounds bounds) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("Expression evaluation timeout")) {
            return " (limit: " + bounds.timeName() + ")";
        }
        return message.contains("Stack overflow error") ? " (limit: " + bounds.depthName() + ")" : "";
    }

    private static String describe(JException e) {
        String message = String.valueOf(e.getMessage()).replaceFirst("^JSonataException ", "");
        String code = e.getError();
        boolean hasCode = code != null && code.matches("[A-Z]\\d{4}");
        return hasCode ? message + " (code " + code + ", position " + e.getLocation() + ")" : message;
    }

    /** Copies a JSONata result into plain JSON-compatible Java; anything else (a function) is an error. */
    private static Object plain(TaskProperties props, Object value) throws TaskException {
        if (value == null || value == Jsonata.NULL_VALUE) {
            return null;
        }
        if (value instanceof String || value instanceof Boolean) {
            return value;
        }
        if (value instanceof Double d && (d.isNaN() || d.isInfinite()) || value instanceof Float f && (f.isNaN() || f.isInfinite())) {
            throw props.problem("JSONata result is not a JSON number: " + value);
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Double || value instanceof BigDecimal
                || value instanceof BigInteger || value instanceof Short || value instanceof Byte || value instanceof Float) {
            return value;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                copy.put(String.valueOf(entry.getKey()), plain(props, entry.getValue()));
            }
            return copy;
        }
        if (value instanceof Collection<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            for (Object item : list) {
                copy.add(plain(props, item));
            }
            return copy;
        }
        throw props.problem("JSONata result is not JSON (a function or " + value.getClass().getSimpleName() + ")");
    }

    /** Thrown from inside the evaluation to unwind it when the thread is interrupted. */
    private static final class Interrupted extends RuntimeException {
        Interrupted() {
            super(null, null, false, false);
        }
    }
}
