package io.millrace.bench;

import java.util.EnumMap;
import java.util.Map;

/**
 * CPU time the engine processes used up to one moment: in total, and per Java thread with the part it belongs to.
 *
 * @param processNanos CPU time of all engine processes, in nanoseconds; -1 when unknown
 * @param threads      per Java thread (keyed by process and thread id, unique for a process's life), its part and CPU
 *                     time in nanoseconds; empty when the processes do not measure thread CPU time
 */
record CpuReading(long processNanos, Map<String, ThreadCpu> threads) {

    static final CpuReading UNKNOWN = new CpuReading(-1, Map.of());

    record ThreadCpu(EnginePart part, long nanos) {
    }

    /**
     * The CPU used from {@code before} to this reading, over {@code wallNanos} of wall-clock time, in percent of one
     * core: per part, then the process total. A thread first seen in this reading started in between and counts in
     * full. What no live Java thread accounts for (the JVM's own threads, and threads that ended in between) is
     * {@link EnginePart#JVM}. Unknown parts are absent; an unknown total is NaN.
     */
    CpuUse since(CpuReading before, long wallNanos) {
        if (processNanos < 0 || before.processNanos < 0 || wallNanos <= 0) {
            return CpuUse.UNKNOWN;
        }
        double total = percent(processNanos - before.processNanos, wallNanos);
        if (threads.isEmpty() || before.threads.isEmpty()) {
            return new CpuUse(total, Map.of());
        }
        var nanos = new EnumMap<EnginePart, Long>(EnginePart.class);
        threads.forEach((id, now) -> {
            ThreadCpu then = before.threads.get(id);
            nanos.merge(now.part(), now.nanos() - (then == null ? 0 : then.nanos()), Long::sum);
        });
        long javaThreads = nanos.values().stream().mapToLong(Long::longValue).sum();
        nanos.put(EnginePart.JVM, Math.max(0, processNanos - before.processNanos - javaThreads));
        var byPart = new EnumMap<EnginePart, Double>(EnginePart.class);
        nanos.forEach((part, n) -> byPart.put(part, percent(n, wallNanos)));
        return new CpuUse(total, byPart);
    }

    private static double percent(long cpuNanos, long wallNanos) {
        return cpuNanos * 100.0 / wallNanos;
    }
}
