package io.millrace.worker;

import io.millrace.core.command.TaskResult;
import io.millrace.core.execution.State;
import io.millrace.core.execution.WorkerTimes;
import io.millrace.serdes.CommandMapper;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.TaskResultRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces {@link TaskResult}s for task records to the results topic, keyed by execution id (so the
 * results of one execution stay in order), for the record's attempt and with this worker's id.
 * Thread-safe; never throws.
 */
final class ResultPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(ResultPublisher.class);

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final String workerId;

    ResultPublisher(Producer<String, byte[]> producer, String topic, String workerId) {
        this.producer = producer;
        this.topic = topic;
        this.workerId = workerId;
    }

    /** A RUNNING heartbeat: extends the attempt's lease. Best effort, the next one follows soon. */
    void heartbeat(WorkerTaskRecord task) {
        produce(task, State.RUNNING, encode(task, State.RUNNING, Map.of(), null, null), e -> {
        });
    }

    /**
     * A final result (SUCCESS, WARNING or FAILED); {@code settled} runs once the broker has it or it is given up.
     * A result that cannot be encoded or produced (outputs that are not JSON, a record too large) is replaced by
     * a FAILED one saying so. If even that fails, it is logged and given up: the executor re-dispatches the
     * attempt when its lease expires, whereas holding its offset back would make a restart re-run every later task.
     * {@code outputs} and {@code error} come masked; {@code mask} masks the error of the FAILED result that replaces
     * one, whose cause may quote them. {@code times}: when this worker received, started and ended the attempt.
     */
    void result(WorkerTaskRecord task, State state, Map<String, Object> outputs, String error, WorkerTimes times,
            UnaryOperator<String> mask, Runnable settled) {
        byte[] value;
        try {
            value = encode(task, state, outputs, error, times);
        } catch (RuntimeException e) {
            fallback(task, state, e, times, mask, settled);
            return;
        }
        produce(task, state, value, e -> {
            if (e == null) {
                settled.run();
            } else {
                // not on the producer's I/O thread, where a send that blocks would stall every other send
                Thread.startVirtualThread(() -> fallback(task, state, e, times, mask, settled));
            }
        });
    }

    private void fallback(WorkerTaskRecord task, State state, Exception cause, WorkerTimes times,
            UnaryOperator<String> mask, Runnable settled) {
        String error = mask.apply("Task '" + task.getTaskId() + "': its " + state + " result could not be produced: "
                + io.millrace.worker.task.Failures.describe(cause));
        produce(task, State.FAILED, encode(task, State.FAILED, Map.of(), error, times), e -> settled.run());
    }

    /** Sends; {@code then} gets null when acknowledged, else the failure (already logged). */
    private void produce(WorkerTaskRecord task, State state, byte[] value, Consumer<Exception> then) {
        try {
            producer.send(new ProducerRecord<>(topic, task.getExecutionId(), value), (metadata, e) -> {
                if (e != null) {
                    logFailure(task, state, e);
                }
                then.accept(e);
            });
        } catch (RuntimeException e) {
            logFailure(task, state, e);
            then.accept(e);
        }
    }

    private static void logFailure(WorkerTaskRecord task, State state, Exception e) {
        LOG.error("Producing the {} result of task '{}' (execution {}, attempt {}) failed", state,
                task.getTaskId(), task.getExecutionId(), task.getAttempt(), e);
    }

    private byte[] encode(WorkerTaskRecord task, State state, Map<String, Object> outputs, String error,
            WorkerTimes times) {
        TaskResultRecord record = CommandMapper.toRecord(new TaskResult(task.getExecutionId(), task.getTaskRunId(),
                task.getAttempt(), state, outputs, error, workerId, times, times == null ? Instant.now() : times.ended()));
        return Topics.RESULT_SERDE.encode(record);
    }
}
