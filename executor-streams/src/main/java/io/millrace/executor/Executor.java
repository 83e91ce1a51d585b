package io.millrace.executor;

import io.micrometer.core.instrument.MeterRegistry;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import io.millrace.topology.ExecutorTopology;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The executor role: creates its topics, then runs the executor topology as a Kafka Streams application. */
public final class Executor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Executor.class);

    private final KafkaStreams streams;
    private final CountDownLatch running = new CountDownLatch(1);

    private Executor(KafkaStreams streams) {
        this.streams = streams;
    }

    /** Starts the executor; {@link #awaitRunning} tells when it processes. */
    public static Executor start(MillraceConfig config, MeterRegistry registry) {
        Topics topics = Topics.of(config);
        TopicAdmin.ensure(config, topics.executorTopics(List.of(config.workerGroup())));
        TopicAdmin.requireCoPartitioned(config, topics.commands(), topics.results());
        var streams = new KafkaStreams(ExecutorTopology.build(config, registry), ExecutorTopology.properties(config));
        var executor = new Executor(streams);
        streams.setStateListener((next, previous) -> {
            LOG.info("Executor {} -> {}", previous, next);
            if (next == KafkaStreams.State.RUNNING) {
                executor.running.countDown();
            }
        });
        // A stream thread that dies is replaced; its tasks restore from their changelogs.
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("Executor stream thread failed; replacing it", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        return executor;
    }

    public boolean awaitRunning(Duration timeout) throws InterruptedException {
        return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isRunning() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    /** Leaves the consumer group, so a restarted executor takes its partitions over at once. */
    @Override
    public void close() {
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
    }
}
