package io.millrace.worker;

import io.millrace.core.expression.TaskSecrets;
import io.millrace.serdes.Topics;
import io.millrace.serdes.avro.LogRecord;
import io.millrace.serdes.avro.WorkerTaskRecord;
import io.millrace.worker.task.TaskLogger;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Task log lines (Kestra's task logs): each goes to the logs topic, keyed by execution id, from where the gateway
 * serves them, and to SLF4J (logger {@code io.millrace.task}). A task's {@code logLevel} is the least level it keeps.
 * Bounded: an attempt keeps at most {@link #MAX_LINES} lines of at most {@link #MAX_MESSAGE_CHARS} characters each;
 * the line that passes the bound says so. Sending never blocks the task on the broker and never fails it.
 * A line is masked ({@link TaskSecrets#mask}) before it goes anywhere, so no secret the attempt resolved is printed.
 */
final class TaskLogs {
    static final int MAX_LINES = 10_000;
    static final int MAX_MESSAGE_CHARS = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger("io.millrace.task");
    private static final Logger SELF = LoggerFactory.getLogger(TaskLogs.class);

    private final Producer<String, byte[]> producer;
    private final String topic;

    TaskLogs(Producer<String, byte[]> producer, String topic) {
        this.producer = producer;
        this.topic = topic;
    }

    /**
     * The log of one attempt; its flow is known once the task record's variables are read.
     *
     * @param secrets the attempt's secrets: every line is masked with them
     */
    AttemptLog attempt(WorkerTaskRecord task, TaskSecrets secrets) {
        return new AttemptLog(task, secrets);
    }

    final class AttemptLog implements TaskLogger {
        private final WorkerTaskRecord task;
        private final TaskSecrets secrets;
        private final AtomicInteger lines = new AtomicInteger();
        private volatile String namespace;
        private volatile String flowId;
        private volatile Level least = Level.TRACE;

        private AttemptLog(WorkerTaskRecord task, TaskSecrets secrets) {
            this.task = task;
            this.secrets = secrets;
        }

        /** The flow the attempt belongs to, and the task's {@code logLevel} (null: every level). */
        void flow(String namespace, String flowId, String logLevel) {
            this.namespace = namespace;
            this.flowId = flowId;
            this.least = logLevel == null ? Level.TRACE : level(logLevel);
        }

        @Override
        public void log(String level, String message) {
            Level parsed = level(level);
            if (parsed.toInt() < least.toInt()) {
                return;
            }
            // masked before it is cut: a cut must not leave a secret's start unmasked
            String text = message == null ? "null" : secrets.mask(message);
            LOG.atLevel(parsed).log("[execution {} task {} attempt {}] {}", task.getExecutionId(), task.getTaskId(),
                    task.getAttempt(), text);
            int line = lines.incrementAndGet();
            if (line > MAX_LINES) {
                return;
            }
            if (text.length() > MAX_MESSAGE_CHARS) {
                text = text.substring(0, MAX_MESSAGE_CHARS) + " [cut at " + MAX_MESSAGE_CHARS + " characters]";
            }
            if (line == MAX_LINES) {
                text = text + " [the attempt's last kept line: at most " + MAX_LINES + " are kept]";
            }
            send(parsed, text);
        }

        private void send(Level level, String message) {
            var record = new LogRecord(task.getExecutionId(), namespace, flowId, task.getTaskId(), task.getTaskRunId(),
                    task.getAttempt(), Instant.now(), level.name(), Thread.currentThread().getName(), message);
            try {
                producer.send(new ProducerRecord<>(topic, task.getExecutionId(), Topics.LOG_SERDE.encode(record)),
                        (metadata, e) -> {
                            if (e != null) {
                                SELF.warn("A log line of execution {} was not sent: {}", task.getExecutionId(), e.toString());
                            }
                        });
            } catch (RuntimeException e) {
                SELF.warn("A log line of execution {} was not sent: {}", task.getExecutionId(), e.toString());
            }
        }
    }

    /** Kestra's level names; anything else is INFO rather than lost. */
    static Level level(String name) {
        if (name == null) {
            return Level.INFO;
        }
        return switch (name.trim().toUpperCase(Locale.ROOT)) {
            case "TRACE" -> Level.TRACE;
            case "DEBUG" -> Level.DEBUG;
            case "WARN", "WARNING" -> Level.WARN;
            case "ERROR" -> Level.ERROR;
            default -> Level.INFO;
        };
    }
}
