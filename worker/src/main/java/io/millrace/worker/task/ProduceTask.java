package io.millrace.worker.task;

import io.millrace.serdes.FlowKafkaReach;
import io.millrace.worker.task.KafkaSerializers.KafkaSerializer;
import io.millrace.worker.task.ProduceRows.Row;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * io.kestra.plugin.kafka.Produce: sends the rows of {@code from} (see {@link ProduceRows}) with a producer configured by
 * {@code properties} (see {@link ProducerSettings}) and outputs {@code messagesCount}. Keys and values are written by
 * {@code keySerializer} and {@code valueSerializer} (see {@link KafkaSerializers}); {@code serdeProperties} is accepted
 * and has no effect, since none of the supported types reads it.
 * <p>
 * Every row is rendered and serialized before the producer is opened, so a bad row sends nothing. With
 * {@code transactional} (the default, as in Kestra) the rows are one transaction: all of them are committed or none.
 * Without it, a failure says how many rows were written. Each run has its own producer, closed in every case; a
 * {@code timeout} or a cancellation interrupts the run wherever the producer waits.
 */
final class ProduceTask implements RunnableTask {

    /** Time for a closing producer to abort an open transaction, rather than leave it to the broker's timeout. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final FlowKafkaReach reach;

    ProduceTask(FlowKafkaReach reach) {
        this.reach = reach;
    }

    @Override
    public TaskOutcome run(TaskInvocation invocation) throws TaskException, InterruptedException {
        TaskProperties props = new TaskProperties(invocation);
        boolean transactional = props.bool("transactional", true);
        KafkaSerializer keys = KafkaSerializers.of(props, "keySerializer");
        KafkaSerializer values = KafkaSerializers.of(props, "valueSerializer");
        if (props.raw("serdeProperties") != null && !(props.raw("serdeProperties") instanceof Map<?, ?>)) {
            throw props.problem("property 'serdeProperties' must be a map of serde settings");
        }
        Map<String, Object> config = ProducerSettings.of(props, invocation.taskId(), transactional, reach);
        List<Row> rows = new ProduceRows(props, props.string("topic"), keys, values).read();
        for (Row row : rows) {
            String property = row.record().topic().equals(props.string("topic")) ? "topic" : row.where() + ".topic";
            String refused = reach.refusedTopic(config, property, row.record().topic()).orElse(null);
            if (refused != null) {
                throw props.problem(refused);
            }
        }
        if (rows.isEmpty()) {
            invocation.logger().log("INFO", "No rows to send");
        } else {
            send(props, config, transactional, rows);
            invocation.logger().log("INFO", "Sent " + rows.size() + " records to " + topics(rows)
                    + (transactional ? " in one transaction" : ""));
        }
        return TaskOutcome.success(Map.of("messagesCount", rows.size()));
    }

    private static void send(TaskProperties props, Map<String, Object> config, boolean transactional, List<Row> rows)
            throws TaskException, InterruptedException {
        KafkaProducer<byte[], byte[]> producer = open(props, config);
        var sends = new ProduceSends(props, rows, transactional);
        String step = "could not send to " + topics(rows);
        boolean inTransaction = false;
        boolean committing = false;
        boolean delivered = false;
        try {
            if (transactional) {
                step = "could not start a transaction to send to " + topics(rows);
                producer.initTransactions();
            }
            Map<String, Integer> partitions = new HashMap<>();
            for (Row row : rows) {
                String topic = row.record().topic();
                step = "could not get the partitions of topic '" + topic + "'";
                int count = partitions.computeIfAbsent(topic, t -> producer.partitionsFor(t).size());
                Integer partition = row.record().partition();
                if (partition != null && partition >= count) {
                    throw props.problem("property '" + row.where() + ".partition' is " + partition + ", but topic '"
                            + topic + "' has " + count + " partition" + (count == 1 ? "" : "s"));
                }
            }
            if (transactional) {
                producer.beginTransaction();
                inTransaction = true;
            }
            for (Row row : rows) {
                step = "could not send " + row.where() + " to topic '" + row.record().topic() + "'";
                sends.send(producer, row);
            }
            producer.flush();
            sends.awaitAll();
            if (transactional) {
                committing = true;
                step = "could not commit the transaction of the rows sent to " + topics(rows);
                producer.commitTransaction();
            }
            delivered = true;
        } catch (InterruptException e) {
            Thread.interrupted(); // Kafka set the flag again; the InterruptedException carries it from here
            throw new InterruptedException("interrupted while sending to " + topics(rows));
        } catch (KafkaException e) {
            if (committing) {
                // a commit that timed out may still complete: the closing producer finishes it, or aborts it
                throw props.problem(step + ": " + describe(e) + "; whether its " + rows.size() + " rows are committed is unknown", e);
            }
            TaskException earlier = sends.failed(false);
            throw earlier != null ? earlier : props.problem(step + ": " + describe(e) + sends.outcome(false), e);
        } finally {
            close(producer, inTransaction || delivered);
        }
    }

    private static KafkaProducer<byte[], byte[]> open(TaskProperties props, Map<String, Object> config) throws TaskException {
        try {
            return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (KafkaException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            throw props.problem("property 'properties' is not a usable Kafka producer configuration: " + describe(root), e);
        }
    }

    /** Closes gracefully once a transaction is open (closing aborts one still open), else at once. */
    private static void close(KafkaProducer<byte[], byte[]> producer, boolean graceful) {
        try {
            producer.close(graceful ? CLOSE_TIMEOUT : Duration.ZERO);
        } catch (KafkaException e) {
            // the outcome of the run is known by now, and a close that fails has released the client all the same
        }
    }

    private static String topics(List<Row> rows) {
        Set<String> topics = rows.stream().map(r -> r.record().topic()).collect(Collectors.toCollection(LinkedHashSet::new));
        return (topics.size() == 1 ? "topic " : "topics ") + topics.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "));
    }

    private static String describe(Throwable t) {
        return ProduceSends.describe(t);
    }
}
