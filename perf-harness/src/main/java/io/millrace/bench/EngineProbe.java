package io.millrace.bench;

import com.sun.management.ThreadMXBean;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CPU time (in total and per Java thread), heap and JIT compile time of the engine's JVMs, read over JMX after
 * attaching to each process by id (the JDK's attach API starts the local management agent in the target). Without
 * processes to attach to, every reading is unknown (NaN or -1).
 */
final class EngineProbe implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineProbe.class);

    private record Target(JMXConnector connector, com.sun.management.OperatingSystemMXBean os, MemoryMXBean memory,
            CompilationMXBean compilation, ThreadMXBean threads) {
    }

    private final List<Target> targets;

    private EngineProbe(List<Target> targets) {
        this.targets = targets;
    }

    /** Attaches to each process; a process that cannot be attached to makes the readings unknown (NaN). */
    static EngineProbe attach(List<Long> pids) {
        var targets = new ArrayList<Target>();
        for (long pid : pids) {
            try {
                VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
                String url;
                try {
                    url = vm.startLocalManagementAgent();
                } finally {
                    vm.detach();
                }
                JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(url));
                var connection = connector.getMBeanServerConnection();
                targets.add(new Target(connector,
                        ManagementFactory.newPlatformMXBeanProxy(connection, ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME,
                                com.sun.management.OperatingSystemMXBean.class),
                        ManagementFactory.newPlatformMXBeanProxy(connection, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class),
                        ManagementFactory.newPlatformMXBeanProxy(connection, ManagementFactory.COMPILATION_MXBEAN_NAME,
                                CompilationMXBean.class),
                        ManagementFactory.newPlatformMXBeanProxy(connection, ManagementFactory.THREAD_MXBEAN_NAME,
                                ThreadMXBean.class)));
            } catch (Exception | LinkageError e) {
                LOG.warn("Cannot attach to engine process {} ({}): CPU and heap will not be reported, and the warm-up "
                        + "lasts --warmup since the engine's JIT cannot be watched", pid, e.toString());
                new EngineProbe(targets).close();
                return none();
            }
        }
        return new EngineProbe(targets);
    }

    static EngineProbe none() {
        return new EngineProbe(List.of());
    }

    /**
     * CPU time used so far by all engine processes, and by each of their Java threads where the processes measure
     * thread CPU time; {@link CpuReading#UNKNOWN} without processes.
     */
    CpuReading cpu() {
        if (targets.isEmpty()) {
            return CpuReading.UNKNOWN;
        }
        long process = 0;
        var threads = new HashMap<String, CpuReading.ThreadCpu>();
        boolean threadsKnown = true;
        for (int t = 0; t < targets.size(); t++) {
            Target target = targets.get(t);
            process += target.os().getProcessCpuTime();
            threadsKnown &= target.threads().isThreadCpuTimeSupported() && target.threads().isThreadCpuTimeEnabled();
            if (threadsKnown) {
                long[] ids = target.threads().getAllThreadIds();
                ThreadInfo[] infos = target.threads().getThreadInfo(ids);
                long[] nanos = target.threads().getThreadCpuTime(ids);
                for (int i = 0; i < ids.length; i++) {
                    // a thread that ended since it was listed has no info and no CPU time
                    if (infos[i] != null && nanos[i] >= 0) {
                        var part = EnginePart.of(infos[i].getThreadName());
                        threads.put(t + "/" + ids[i], new CpuReading.ThreadCpu(part, nanos[i]));
                    }
                }
            }
        }
        return new CpuReading(process, threadsKnown ? threads : Map.of());
    }

    /** Time the JIT compilers of all engine processes spent so far, in milliseconds; -1 when unknown. */
    long compilationMillis() {
        if (targets.isEmpty()) {
            return -1;
        }
        long sum = 0;
        for (Target t : targets) {
            if (!t.compilation().isCompilationTimeMonitoringSupported()) {
                return -1;
            }
            sum += t.compilation().getTotalCompilationTime();
        }
        return sum;
    }

    /** Heap in use after a full GC in every engine process, in MiB; NaN when unknown. */
    double liveHeapMb() {
        if (targets.isEmpty()) {
            return Double.NaN;
        }
        long used = 0;
        for (Target t : targets) {
            t.memory().gc();
            used += t.memory().getHeapMemoryUsage().getUsed();
        }
        return used / (1024.0 * 1024.0);
    }

    @Override
    public void close() {
        for (Target t : targets) {
            try {
                t.connector().close();
            } catch (IOException e) {
                LOG.debug("Closing JMX connection: {}", e.toString());
            }
        }
    }
}
