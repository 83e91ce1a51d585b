package io.millrace.config;

import io.millrace.core.expression.RenderLimits;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The whole typed configuration of a Millrace process, validated when built. Every role reads the
 * parts it needs. Kafka properties not modelled here pass through {@code kafka}: keys as Kafka Streams
 * understands them ({@code producer.linger.ms}, {@code consumer.fetch.max.wait.ms}, plain Streams keys).
 * {@code expressionLimits} bounds every template render of every role ({@code expression-*} settings,
 * see {@link RenderLimits}). {@code taskReach} is what flows' tasks and triggers may reach ({@code task-http-*},
 * {@code task-kafka-*} settings, see {@link TaskReach}). {@code secretsDir} is the folder a worker reads secrets from,
 * one file a secret ({@code secrets-dir}; none by default). {@code minInsyncReplicas} is the
 * {@code min.insync.replicas} of every topic the roles create ({@code min-insync-replicas}; 0: the brokers' default).
 * {@code secrets} encrypts SECRET inputs and names the webhook headers dropped ({@link SecretSettings}).
 */
public record MillraceConfig(
        String bootstrapServers,
        String topicPrefix,
        int partitions,
        short replicationFactor,
        String processingGuarantee,
        int streamThreads,
        long pollMs,
        long commitIntervalMs,
        int eagerCommitMaxPercent,
        Path stateDir,
        Duration lease,
        int maxLostAttempts,
        Duration retention,
        String workerGroup,
        int workerConcurrency,
        int port,
        int managementPort,
        Duration waitTimeout,
        long triggerExecutorBacklog,
        Duration triggerExecutorDelay,
        Path dataDir,
        Map<String, String> kafka,
        ApiAccess api,
        ExecutorLimits executorLimits,
        WorkerLimits workerLimits,
        RenderLimits expressionLimits,
        TaskReach taskReach,
        Optional<Path> secretsDir,
        int minInsyncReplicas,
        SecretSettings secrets) {

    public static final String EXACTLY_ONCE_V2 = "exactly_once_v2";
    public static final String AT_LEAST_ONCE = "at_least_once";

    public MillraceConfig {
        kafka = Map.copyOf(kafka);
    }

    /** The defaults, tuned for latency on a small machine. */
    public static MillraceConfig defaults() {
        return ConfigLoader.load(Map.of(), Map.of(), null);
    }

    public MillraceConfig withBootstrapServers(String servers) {
        return new MillraceConfig(servers, topicPrefix, partitions, replicationFactor, processingGuarantee,
                streamThreads, pollMs, commitIntervalMs, eagerCommitMaxPercent, stateDir, lease, maxLostAttempts,
                retention, workerGroup, workerConcurrency, port, managementPort, waitTimeout, triggerExecutorBacklog,
                triggerExecutorDelay, dataDir, kafka, api, executorLimits, workerLimits, expressionLimits, taskReach,
                secretsDir, minInsyncReplicas, secrets);
    }

    /** As standalone runs: what tasks may reach as {@link TaskReach#inStandalone}. */
    public MillraceConfig inStandalone() {
        return new MillraceConfig(bootstrapServers, topicPrefix, partitions, replicationFactor, processingGuarantee,
                streamThreads, pollMs, commitIntervalMs, eagerCommitMaxPercent, stateDir, lease, maxLostAttempts,
                retention, workerGroup, workerConcurrency, port, managementPort, waitTimeout, triggerExecutorBacklog,
                triggerExecutorDelay, dataDir, kafka, api, executorLimits, workerLimits, expressionLimits,
                taskReach.inStandalone(), secretsDir, minInsyncReplicas, secrets);
    }

    public MillraceConfig withSecrets(SecretSettings settings) {
        return new MillraceConfig(bootstrapServers, topicPrefix, partitions, replicationFactor, processingGuarantee,
                streamThreads, pollMs, commitIntervalMs, eagerCommitMaxPercent, stateDir, lease, maxLostAttempts,
                retention, workerGroup, workerConcurrency, port, managementPort, waitTimeout, triggerExecutorBacklog,
                triggerExecutorDelay, dataDir, kafka, api, executorLimits, workerLimits, expressionLimits, taskReach,
                secretsDir, minInsyncReplicas, settings);
    }

    public MillraceConfig withStateDir(Path dir) {
        return new MillraceConfig(bootstrapServers, topicPrefix, partitions, replicationFactor, processingGuarantee,
                streamThreads, pollMs, commitIntervalMs, eagerCommitMaxPercent, dir, lease, maxLostAttempts,
                retention, workerGroup, workerConcurrency, port, managementPort, waitTimeout, triggerExecutorBacklog,
                triggerExecutorDelay, dataDir, kafka, api, executorLimits, workerLimits, expressionLimits, taskReach,
                secretsDir, minInsyncReplicas, secrets);
    }

    public boolean exactlyOnce() {
        return EXACTLY_ONCE_V2.equals(processingGuarantee);
    }

    /**
     * The produce requests the executor's, the workers' and the gateway's producers keep in flight unless
     * {@code kafka.*} says otherwise: one under exactly-once, else Kafka's default. The broker's cost is per produce
     * request: with one in flight, records wait for the previous request's answer instead of going out in a request of
     * their own, so batches grow with the load while at low load a record goes at once (the linger is none). W1 under
     * exactly-once kept up with 1,000/s (p99 437 and 884 ms) where five in flight fell behind or had a p99 over 1.5 s;
     * under at-least-once one fell behind sooner (docs/TUNING.md).
     */
    public OptionalInt producerRequestsInFlight() {
        return exactlyOnce() ? OptionalInt.of(1) : OptionalInt.empty();
    }

    /**
     * How long the engine's producers (executor, workers, gateway, triggers) let a record wait for company unless
     * {@code kafka.*} says otherwise: none, under either guarantee (Kafka's own default is 5 ms). A W1 execution crosses
     * five lingering producers, and at low rates nothing comes to share a request, so each linger is latency: under
     * exactly-once 1 ms put the p50 at 100/s at 12.1–12.3 ms where none gave 6.3–6.9 ms; at 400–800/s the two were
     * alike, and only at 1,600/s, the two cores full, did the extra requests cost (docs/TUNING.md, "Producer linger").
     */
    public int producerLingerMs() {
        return 0;
    }
}
