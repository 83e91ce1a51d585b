package io.millrace.worker.task;

/**
 * A task that runs on a worker. Implementations are stateless and thread-safe (one instance serves every
 * run), may block, run on a virtual thread and must honour interruption (cancellation, timeouts) by
 * throwing {@link InterruptedException}.
 */
public interface RunnableTask {

    /**
     * Runs once. A failure is either a returned {@link TaskOutcome#failed} or a thrown exception (usually a
     * {@link TaskException}); {@link #execute} turns both into an outcome.
     */
    TaskOutcome run(TaskInvocation invocation) throws Exception;

    /**
     * Runs and never fails silently: any exception becomes a FAILED outcome whose error names the task and
     * the problem (an unexpected one its message and an error id, never its class or stack: {@link Failures}). Only an
     * interruption escapes, so that the caller can tell a cancellation from a failure.
     */
    default TaskOutcome execute(TaskInvocation invocation) throws InterruptedException {
        try {
            TaskOutcome outcome = run(invocation);
            return outcome != null ? outcome : TaskOutcome.failed("Task '" + invocation.taskId() + "': produced no outcome");
        } catch (InterruptedException e) {
            throw e;
        } catch (TaskException e) {
            return TaskOutcome.failed(e.getMessage());
        } catch (Exception e) {
            return TaskOutcome.failed(Failures.unexpected(invocation.taskId(), e));
        }
    }
}
