package io.millrace.config;

import java.time.Duration;

/**
 * What one decision of the executor may write and one execution may grow to, so that no execution can make it send a record Kafka refuses (which
 * would abort its transaction and replay the same command for ever) or build a transaction without bound. Reaching a
 * limit fails that execution with a message naming the setting; docs/LIMITS.md lists them.
 *
 * @param maxRecordBytes the largest record the executor sends or stores ({@code max-record-bytes}): an encoded
 *     snapshot, event, dispatch or dead letter. It must stay below the topics' {@code max.message.bytes} and the
 *     producer's {@code max.request.size} (both about 1 MiB by default), with room for the key and the batch header
 * @param maxDecisionBytes the most bytes of records one decision sends together ({@code max-decision-bytes})
 * @param maxTaskRuns the most task runs one execution may create ({@code max-task-runs})
 * @param maxFlowableConcurrency the most lanes of one flowable running at once, whatever its own concurrency
 *     ({@code max-flowable-concurrency})
 * @param maxSubflowDepth how deep subflows may nest ({@code max-subflow-depth}); a Subflow run that would start an
 *     execution deeper fails, naming the setting
 * @param maxRunningExecutions the most executions one stream task (one partition of {@code commands}) runs at once
 *     ({@code max-running-executions}); a create read past it waits in the executor until one ends; 0: no bound
 * @param maxQueuedExecutions the most executions of one flow waiting QUEUED for a place under its concurrency limit
 *     ({@code max-queued-executions}, at most {@value #MAX_QUEUED_EXECUTIONS}: the queue is one record); one more fails
 * @param expressionMaxTime wall time one render on the executor may take ({@value #EXPRESSION_MAX_TIME}: runIf, If,
 *     Switch, ForEach values, flow outputs), in place of {@code expression-max-time}: the other executions of its
 *     stream thread wait while it runs
 */
public record ExecutorLimits(int maxRecordBytes, long maxDecisionBytes, int maxTaskRuns, int maxFlowableConcurrency,
        int maxSubflowDepth, int maxRunningExecutions, int maxQueuedExecutions, Duration expressionMaxTime) {

    public static final String EXPRESSION_MAX_TIME = "executor-expression-max-time";

    /** The bytes Kafka needs beside a record's value: its key, headers and batch header, with room to spare. */
    public static final int RECORD_OVERHEAD_BYTES = 16 * 1024;

    /** The most {@code max-queued-executions} may be: a flow's queue, ids of 22 to 40 characters, is one record. */
    public static final int MAX_QUEUED_EXECUTIONS = 10_000;

    public ExecutorLimits {
        if (maxQueuedExecutions > MAX_QUEUED_EXECUTIONS) {
            throw new ConfigException("Expected max-queued-executions to be at most " + MAX_QUEUED_EXECUTIONS
                    + ", but was " + maxQueuedExecutions);
        }
        if (maxDecisionBytes < maxRecordBytes) {
            throw new ConfigException("Expected max-decision-bytes (" + maxDecisionBytes + ") to be at least max-record-bytes ("
                    + maxRecordBytes + ")");
        }
    }
}
