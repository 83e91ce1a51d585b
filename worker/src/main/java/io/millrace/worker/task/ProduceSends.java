package io.millrace.worker.task;

import io.millrace.worker.task.ProduceRows.Row;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TransactionAbortedException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * The sends of one Produce run, in the order of its rows, and what the failure of one of them means for the others:
 * in a transaction, every row then fails with it and none is committed; without one, the others may be written.
 */
final class ProduceSends {

    private final TaskProperties props;
    private final List<Row> rows;
    private final boolean transactional;
    private final List<Future<RecordMetadata>> futures = new ArrayList<>();
    /**
     * The first row the producer refused before sending it (too large, ...), or -1. In a transaction, the other rows
     * fail with the very same error, so only this index tells which row caused it.
     */
    private int refused = -1;

    ProduceSends(TaskProperties props, List<Row> rows, boolean transactional) {
        this.props = props;
        this.rows = rows;
        this.transactional = transactional;
    }

    void send(KafkaProducer<byte[], byte[]> producer, Row row) {
        Future<RecordMetadata> future = producer.send(row.record());
        if (refused < 0 && failure(future) != null) {
            refused = futures.size();
        }
        futures.add(future);
    }

    /** Once the producer is flushed every send has ended: the first that failed fails the run. */
    void awaitAll() throws TaskException, InterruptedException {
        for (Future<RecordMetadata> future : futures) {
            try {
                future.get();
            } catch (ExecutionException e) {
                throw failed(true);
            }
        }
    }

    /**
     * The row whose send failed first, as a problem, or null when none has failed yet: the row the producer refused,
     * else the first that failed other than as aborted (the rows of an aborted transaction fail as such), else the
     * first that failed. {@code allEnded}: every send has ended, so the rows written can be counted.
     */
    TaskException failed(boolean allEnded) {
        int first = refused >= 0 ? refused : firstFailed(false);
        first = first >= 0 ? first : firstFailed(true);
        if (first < 0) {
            return null;
        }
        Row row = rows.get(first);
        Throwable cause = failure(futures.get(first));
        return props.problem("could not send " + row.where() + " to topic '" + row.record().topic() + "': "
                + describe(cause) + outcome(allEnded), cause);
    }

    /** What became of the rows, for a failure's message. */
    String outcome(boolean allEnded) {
        if (futures.isEmpty()) {
            return "; no row was sent";
        }
        if (transactional) {
            return "; the transaction is aborted, so none of the " + rows.size() + " rows is committed";
        }
        long written = futures.stream().filter(f -> f.isDone() && f.state() == Future.State.SUCCESS).count();
        return allEnded ? "; " + written + " of " + rows.size() + " rows were written"
                : "; " + written + " of " + rows.size() + " rows are known to be written, and more may be";
    }

    private int firstFailed(boolean evenAborted) {
        for (int i = 0; i < futures.size(); i++) {
            Throwable cause = failure(futures.get(i));
            if (cause != null && (evenAborted || !(cause instanceof TransactionAbortedException))) {
                return i;
            }
        }
        return -1;
    }

    private static Throwable failure(Future<RecordMetadata> future) {
        return future.isDone() && future.state() == Future.State.FAILED ? future.exceptionNow() : null;
    }

    /** An exception's class and message, and its causes' while they add something; never a stack trace. */
    static String describe(Throwable t) {
        return describe(t, 0);
    }

    private static String describe(Throwable t, int depth) {
        String message = t.getMessage();
        String text = Failures.describe(t);
        Throwable cause = t.getCause();
        boolean causeSaid = cause == null || cause == t || depth == 2
                || message != null && cause.getMessage() != null && message.contains(cause.getMessage());
        return causeSaid ? text : text + " (caused by " + describe(cause, depth + 1) + ")";
    }
}
