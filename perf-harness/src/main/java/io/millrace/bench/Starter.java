package io.millrace.bench;

/** Starts one execution of the workload's flow: through Kafka or through the REST gateway. */
interface Starter extends AutoCloseable {
    /**
     * Starts execution number {@code n}, due at {@code dueNanos}, and tells the tracker its id (or that the start
     * failed), attributing it to {@code window}. Must not block the caller for the engine's answer.
     */
    void start(long n, long dueNanos, LatencyWindow window);

    @Override
    void close();
}
