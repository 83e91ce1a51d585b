package io.millrace.bench;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The parts of an engine process that CPU is charged to, told apart by the names of their threads. The JVM's own
 * threads (JIT compilers, garbage collectors, the VM thread) are not visible as Java threads: their CPU is what is left
 * of the process's CPU once every Java thread's is counted.
 */
public enum EnginePart {
    /** The executor's Kafka Streams threads: deciding, the state stores and their changelogs. */
    EXECUTOR("executor"),
    /** The REST gateway: its HTTP threads and its read model's Kafka Streams threads. */
    GATEWAY("gateway"),
    /** The workers: their poll, heartbeat and task threads. */
    WORKERS("workers"),
    /** The Kafka clients' I/O threads of every part: producers' senders, admin clients, group heartbeats. */
    CLIENTS("clients"),
    /** The embedded broker and its controller. */
    BROKER("broker"),
    /** Every other Java thread (the JMX connection this harness reads through, start-up, ...). */
    OTHER("other"),
    /** The JVM's own threads: JIT compilers, garbage collectors, the VM thread. */
    JVM("JIT, GC, VM");

    /** A Kafka Streams thread: {@code <application id>-<process UUID>-<kind>}. */
    private static final Pattern STREAMS_THREAD = Pattern.compile(
            "(.*)-\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}-"
                    + "(StreamThread|StateUpdater|GlobalStreamThread|CleanupThread).*");
    /** The default virtual-thread scheduler's carrier threads. */
    private static final Pattern CARRIER_THREAD = Pattern.compile("ForkJoinPool-\\d+-worker-\\d+");
    private static final List<String> GATEWAY_PREFIXES = List.of("JettyServerThreadPool", "Scheduler-",
            "Session-HouseKeeper");
    private static final List<String> WORKER_PREFIXES = List.of("millrace-worker-", "millrace-task-");
    private static final List<String> BROKER_PREFIXES = List.of("data-plane-kafka-", "kafka-", "broker-",
            "controller-", "quorum-controller-", "group-coordinator-", "share-", "ExpirationReaper-",
            "TxnMarkerSenderThread-", "AddPartitionsToTxnSenderThread-", "transaction-log-manager-", "raft-",
            "executor-", "metrics-meter-tick-thread-", "LogDirFailureHandler", "ReplicaFetcherThread-",
            "client-metrics-reaper", "network-partition-metadata-client-reaper", "persister-state-manager-reaper",
            "PersisterStateManager", "SensorExpiryThread");

    private final String label;

    EnginePart(String label) {
        this.label = label;
    }

    /** The name reports show. */
    public String label() {
        return label;
    }

    /** The part a Java thread belongs to, from its name; never {@link #JVM}. */
    static EnginePart of(String threadName) {
        // a client thread is "<kind> | <client id>", and the client id may name a stream thread
        if (threadName.contains(" | ")) {
            return CLIENTS;
        }
        var streams = STREAMS_THREAD.matcher(threadName);
        if (streams.matches()) {
            String applicationId = streams.group(1);
            return applicationId.endsWith("executor") ? EXECUTOR : applicationId.endsWith("gateway") ? GATEWAY : OTHER;
        }
        if (startsWithAny(threadName, GATEWAY_PREFIXES)) {
            return GATEWAY;
        }
        if (startsWithAny(threadName, WORKER_PREFIXES) || CARRIER_THREAD.matcher(threadName).matches()) {
            return WORKERS;
        }
        return startsWithAny(threadName, BROKER_PREFIXES) ? BROKER : OTHER;
    }

    private static boolean startsWithAny(String name, List<String> prefixes) {
        return prefixes.stream().anyMatch(name::startsWith);
    }
}
