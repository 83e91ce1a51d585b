package io.millrace.worker;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads tasks run on: platform threads, reused, not a virtual thread per task. A virtual thread that computes
 * without blocking (a JSONata or jq expression that does not end, a loop that ignores interruption) keeps its carrier,
 * and once as many of them as there are cores spin, no other task of the worker runs, heartbeats' sends and results
 * included; the OS time-slices platform threads, so a spinning task costs a share of the CPU, never the worker.
 * Handing a task to an idle thread cost about 5 µs on a 2-core machine, a virtual thread about 1–3 µs: noise next to
 * a task's render, send and result (docs/architecture.md, Worker).
 * <p>
 * The pool grows on demand and lets an idle thread go after {@link #KEEP_ALIVE_SECONDS}: the poll loop's slots bound
 * the tasks that run, and an abandoned task (one that ignored its interruption at its deadline, see {@link Attempt})
 * keeps its thread while its slot goes to the next task, so a fixed pool would run short.
 * Each thread's stack is {@link #STACK_BYTES} (reserved, committed as used), so that a deep JSONata evaluation meets
 * its depth bound ({@code jsonata-max-depth}, default 5000) before the end of its stack: measured with a recursive
 * JSONata function before the JIT compiled it, a 1 MiB stack held a depth of about 1,000, 4 MiB about 13,000.
 */
final class TaskThreads {
    static final long STACK_BYTES = 4L * 1024 * 1024;
    static final long KEEP_ALIVE_SECONDS = 60;
    private static final Logger LOG = LoggerFactory.getLogger(TaskThreads.class);

    private TaskThreads() {
    }

    static ExecutorService create() {
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
                Thread.ofPlatform().name("millrace-task-", 0).daemon().stackSize(STACK_BYTES)
                        .uncaughtExceptionHandler((thread, e) -> LOG.error("A task thread failed", e)).factory());
    }
}
