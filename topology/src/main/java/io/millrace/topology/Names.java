package io.millrace.topology;

/**
 * Every processor and store of the executor topology, named once and forever: a rename changes
 * changelog topics and loses state, so these strings are part of the on-disk format.
 */
public final class Names {
    public static final String COMMANDS_SOURCE = "Commands.source";
    public static final String RESULTS_SOURCE = "Results.source";
    public static final String FLOWS_SOURCE = "Flows.source";
    public static final String FLOWS_LOADER = "Flows.load";
    public static final String EXECUTOR = "Executor.decide";
    public static final String TASKS_SINK = "Tasks.sink";
    /** A dispatch too large for the workers comes back as its own failed result. */
    public static final String RESULTS_SINK = "Results.sink";
    public static final String EVENTS_SINK = "Events.sink";
    public static final String SNAPSHOTS_SINK = "Snapshots.sink";
    public static final String DEAD_LETTERS_SINK = "DeadLetters.sink";
    /** Commands to other executions: a subflow's start, a child's end notice, a kill that cascades. */
    public static final String COMMANDS_SINK = "Commands.sink";
    /** Kills every worker reads: the attempts of a killed execution stop. */
    public static final String KILLS_SINK = "Kills.sink";

    /** execution id → execution state, without its task runs. */
    public static final String EXECUTIONS_STORE = "executor-executions";
    /** execution id + '/' + creation index in 8 hex digits → task run (see SnapshotKeys): one record per run. */
    public static final String TASK_RUNS_STORE = "executor-taskruns";
    /** execution id + '/' + task run id → task run outputs (kept apart so state updates never copy them). */
    public static final String OUTPUTS_STORE = "executor-outputs";
    /** zero-padded due epoch millis + '/' + timer id → timer; scanned in key order by the punctuator. */
    public static final String TIMERS_STORE = "executor-timers";
    /** execution id → a create command waiting for its flow to reach the flows store. */
    public static final String DEFERRED_STORE = "executor-deferred";
    /** Creates that wait for a place to start (max-running-executions), oldest first (see Admissions). */
    public static final String ADMISSIONS_STORE = "executor-admissions";
    /** namespace/id → that flow's concurrency slots, as JSON (see FlowSlots): on the flow key's partition. */
    public static final String SLOTS_STORE = "executor-slots";
    /** namespace/id@revision → flow revision (global: every instance sees every flow). */
    public static final String FLOWS_STORE = "executor-flows";

    private Names() {
    }
}
