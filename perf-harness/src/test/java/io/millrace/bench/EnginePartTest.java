package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Thread names as a standalone engine has them (read from a thread dump), and the part each is charged to. */
class EnginePartTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "millrace.executor-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-StreamThread-1; EXECUTOR",
        "millrace.executor-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-StateUpdater-2; EXECUTOR",
        "millrace.executor-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-GlobalStreamThread; EXECUTOR",
        "executor-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-StreamThread-1; EXECUTOR",
        "millrace.gateway-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-GlobalStreamThread; GATEWAY",
        "JettyServerThreadPool-42; GATEWAY",
        "millrace-worker-poll-default; WORKERS",
        "millrace-worker-heartbeats; WORKERS",
        "ForkJoinPool-1-worker-3; WORKERS",
        "kafka-producer-network-thread | millrace.executor-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-StreamThread-1-producer; CLIENTS",
        "kafka-producer-network-thread | vm-1-b3f4f-results; CLIENTS",
        "kafka-coordinator-heartbeat-thread | millrace.worker.default; CLIENTS",
        "kafka-admin-client-thread | millrace.gateway-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-admin; CLIENTS",
        "data-plane-kafka-request-handler-7; BROKER",
        "data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0; BROKER",
        "kafka-scheduler-3; BROKER",
        "kafka-1-raft-io-thread; BROKER",
        "group-coordinator-event-processor-2; BROKER",
        "TxnMarkerSenderThread-1; BROKER",
        "executor-Fetch; BROKER",
        "ForkJoinPool.commonPool-worker-1; OTHER",
        "RMI TCP Connection(3)-127.0.0.1; OTHER",
        "main; OTHER",
    })
    void shouldChargeAThreadToItsPart(String threadName, EnginePart part) {
        assertThat(EnginePart.of(threadName)).isEqualTo(part);
    }
}
