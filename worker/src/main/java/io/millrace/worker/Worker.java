package io.millrace.worker;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.serdes.KafkaMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.core.expression.Expressions;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.worker.task.TaskRegistry;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker of one worker group: consumes {@code tasks.<group>}, runs each task on a thread of its own (at most
 * {@code workerConcurrency} at once, none past {@code task-max-duration}) and produces RUNNING heartbeats and a final
 * result per task to {@code results}. Delivery is at-least-once: the executor ignores stale and duplicate results and
 * re-dispatches attempts whose lease expired, so a lost worker costs a lease, never a task.
 */
public final class Worker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    /** How long close() lets interrupted tasks end and in-flight results be acknowledged. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final String workerId;
    private final String group;
    private final KafkaProducer<String, byte[]> producer;
    private final ScheduledThreadPoolExecutor heartbeats;
    private final PollLoop loop;
    private final Thread pollThread;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final WorkerMetrics metrics;
    private final int maxAbandonedTasks;
    private final AtomicBoolean saidTooManyAbandoned = new AtomicBoolean();
    private final KafkaMeters.Bound producerMetrics;
    private final KafkaMeters.Bound consumerMetrics;
    private final KillListener kills;

    private Worker(MillraceConfig config, String workerId, MeterRegistry registry, TaskRegistry tasks) {
        this.workerId = workerId;
        this.group = config.workerGroup();
        Topics topics = Topics.of(config);
        this.producer = new KafkaProducer<>(KafkaSettings.producer(config, workerId), new StringSerializer(),
                new ByteArraySerializer());
        this.heartbeats = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon()
                .name("millrace-worker-heartbeats").factory());
        heartbeats.setRemoveOnCancelPolicy(true);
        this.maxAbandonedTasks = config.workerLimits().maxAbandonedTasks();
        try {
            this.metrics = new WorkerMetrics(registry, group, tasks.types());
            var services = new Attempt.Services(new ResultPublisher(producer, topics.results().name(), workerId),
                    heartbeats, metrics);
            var runner = new TaskRunner(tasks, new Expressions(config.expressionLimits()),
                    WorkerSecrets.of(System.getenv(), config.secretsDir()),
                    new SecretInputs(config.secrets().inputCipher()), services,
                    new TaskLogs(producer, topics.logs().name()),
                    new TaskDeadLetters(producer, topics.deadLetters().name(), metrics), config.lease(),
                    config.workerLimits().taskMaxDuration());
            // Values stay bytes until a task thread decodes them: a bad record must not break poll().
            var consumer = new KafkaConsumer<>(KafkaSettings.consumer(config, workerId), new StringDeserializer(),
                    new ByteArrayDeserializer());
            this.loop = new PollLoop(consumer, topics.tasks(group).name(), config.workerConcurrency(), runner,
                    runner::stop, STOP_GRACE);
            Gauge.builder("millrace.worker.slots.busy", loop, PollLoop::busySlots)
                    .description("Task slots (of worker-concurrency) running a task now").tag("group", group)
                    .register(registry);
            Gauge.builder("millrace.worker.slots.free", loop, PollLoop::freeSlots)
                    .description("Task slots (of worker-concurrency) free for a task now").tag("group", group)
                    .register(registry);
            this.producerMetrics = KafkaMeters.bind(producer, registry);
            this.consumerMetrics = KafkaMeters.bind(consumer, registry);
            this.kills = new KillListener(new KafkaConsumer<>(KafkaSettings.killsConsumer(config, workerId),
                    new StringDeserializer(), new ByteArrayDeserializer()), topics.kills().name(), runner::kill,
                    "millrace-worker-kills-" + group);
        } catch (RuntimeException e) {
            heartbeats.shutdownNow();
            producer.close(Duration.ZERO);
            throw e;
        }
        this.pollThread = Thread.ofPlatform().name("millrace-worker-poll-" + group)
                .uncaughtExceptionHandler((t, e) -> LOG.error("Worker {} stopped polling", workerId, e))
                .unstarted(loop);
    }

    /** {@link #start(MillraceConfig, MeterRegistry)} with metrics nobody reads. */
    public static Worker start(MillraceConfig config) {
        return start(config, new SimpleMeterRegistry());
    }

    /**
     * Creates the group's tasks topic and the results, logs and dead-letter topics if missing, then starts consuming.
     *
     * Its tasks reach what a worker role may ({@link TaskRegistry#forRole}).
     *
     * @param registry where the worker's metrics (slots, task times, its Kafka clients') go
     */
    public static Worker start(MillraceConfig config, MeterRegistry registry) {
        return start(config, registry, TaskRegistry.forRole(config));
    }

    /** {@link #start(MillraceConfig, MeterRegistry)} for standalone: its tasks may reach this machine too. */
    public static Worker startStandalone(MillraceConfig config, MeterRegistry registry) {
        return start(config, registry, TaskRegistry.forStandalone(config));
    }

    /** @param tasks the task types this worker runs */
    static Worker start(MillraceConfig config, MeterRegistry registry, TaskRegistry tasks) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, List.of(topics.tasks(config.workerGroup()), topics.results(), topics.logs(),
                topics.deadLetters(), topics.kills()));
        Worker worker = new Worker(config, newWorkerId(), registry, tasks);
        worker.pollThread.start();
        LOG.info("Worker {} started for group '{}' (concurrency {})", worker.workerId, worker.group,
                config.workerConcurrency());
        return worker;
    }

    /** Polls its tasks topic: started and not stopped. */
    public boolean running() {
        return !closed.get() && pollThread.isAlive();
    }

    /**
     * Running, with fewer abandoned tasks still spinning than {@code worker-max-abandoned-tasks}: past it only a restart
     * frees their threads and cores (Java cannot stop a thread), so {@code /health/live} says so, and an orchestrator
     * restarts the worker. Logged once each time it becomes true.
     */
    public boolean alive() {
        int abandoned = metrics.abandonedRunning();
        if (maxAbandonedTasks == 0 || abandoned < maxAbandonedTasks) {
            saidTooManyAbandoned.set(false);
            return running();
        }
        if (saidTooManyAbandoned.compareAndSet(false, true)) {
            LOG.error("Worker {}: {} abandoned tasks still run on their threads (worker-max-abandoned-tasks {}); only a"
                    + " restart frees them, so /health/live answers 503", workerId, abandoned, maxAbandonedTasks);
        }
        return false;
    }

    /** {@code host-pid-random}: tells this process's results apart from any other's, restarts included. */
    public String workerId() {
        return workerId;
    }

    /**
     * Stops polling, interrupts running tasks and gives them (and results in flight) a few seconds, commits
     * the offsets of tasks whose result was produced, then closes the clients. Interrupted tasks produce no
     * result; the executor re-dispatches them when their lease expires. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        loop.stop();
        kills.close();
        try {
            pollThread.join(STOP_GRACE.plus(CLOSE_TIMEOUT).plusSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        heartbeats.shutdownNow();
        consumerMetrics.close();
        producerMetrics.close();
        producer.close(CLOSE_TIMEOUT);
        LOG.info("Worker {} stopped", workerId);
    }

    private static String newWorkerId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "unknown-host";
            }
        }
        byte[] suffix = new byte[3];
        ThreadLocalRandom.current().nextBytes(suffix);
        return host + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(suffix);
    }
}
