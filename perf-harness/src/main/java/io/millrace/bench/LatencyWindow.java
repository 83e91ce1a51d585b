package io.millrace.bench;

import org.HdrHistogram.Histogram;

/**
 * Latencies of the executions due in one measurement window, in an HdrHistogram (microsecond resolution,
 * three significant digits), with the count of failures, and of the starts the engine refused or never answered (which
 * no execution follows). Recorded by one thread at a time.
 */
public final class LatencyWindow {
    private static final long MAX_MICROS = 3_600_000_000L;

    private final Histogram histogram = new Histogram(MAX_MICROS, 3);
    /** REST starts only: from the due time to the HTTP answer, whatever it said. */
    private final Histogram answers = new Histogram(MAX_MICROS, 3);
    /** Successful executions whose start time is known: from the due time to the executor's start (CREATED). */
    private final Histogram starts = new Histogram(MAX_MICROS, 3);
    /** Successful executions whose times are known: from the executor's start to its decision that ended them. */
    private final Histogram runs = new Histogram(MAX_MICROS, 3);
    /** Successful executions whose end time is known: from the executor's end decision to the terminal snapshot read. */
    private final Histogram seen = new Histogram(MAX_MICROS, 3);
    private long failures;
    private long expected;
    private long refused;
    private long unanswered;

    /** An execution of this window ended in SUCCESS, {@code nanos} after it was due. */
    public synchronized void recordSuccess(long nanos) {
        histogram.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1_000)));
    }

    /** An execution of this window that ended in SUCCESS was started by the executor {@code nanos} after it was due. */
    public synchronized void recordStart(long nanos) {
        starts.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1_000)));
    }

    /** The time to the executor's start at a percentile (0..100) in milliseconds; NaN when none is known. */
    public synchronized double startPercentileMs(double percentile) {
        return percentileMs(starts, percentile);
    }

    /**
     * An execution of this window that ended in SUCCESS: the executor decided its end {@code runNanos} after it started
     * it, and its terminal snapshot was read {@code seenNanos} after that decision.
     */
    public synchronized void recordEnd(long runNanos, long seenNanos) {
        runs.recordValue(Math.min(MAX_MICROS, Math.max(0, runNanos / 1_000)));
        seen.recordValue(Math.min(MAX_MICROS, Math.max(0, seenNanos / 1_000)));
    }

    /** From the executor's start to its end decision, at a percentile, in milliseconds; NaN when none is known. */
    public synchronized double runPercentileMs(double percentile) {
        return percentileMs(runs, percentile);
    }

    /** From the end decision to the snapshot read (commit and delivery), at a percentile, in ms; NaN when unknown. */
    public synchronized double seenPercentileMs(double percentile) {
        return percentileMs(seen, percentile);
    }

    private static double percentileMs(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1_000.0;
    }

    /** An execution of this window ended in a state other than SUCCESS. */
    public synchronized void recordFailure() {
        failures++;
    }

    /** A REST start was answered (started, refused or failed) {@code nanos} after it was due. */
    public synchronized void recordAnswer(long nanos) {
        answers.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1_000)));
    }

    /** The time to a REST start's answer at a percentile (0..100) in milliseconds; NaN when none was answered. */
    public synchronized double answerPercentileMs(double percentile) {
        return answers.getTotalCount() == 0 ? Double.NaN : answers.getValueAtPercentile(percentile) / 1_000.0;
    }

    /** A start the engine turned away, asking to retry later (no execution follows): counted apart from failures. */
    public synchronized void recordRefused() {
        refused++;
    }

    /** A start that got no answer at all (a timeout, a connection closed or refused): counted apart from failures. */
    public synchronized void recordUnanswered() {
        unanswered++;
    }

    public synchronized long refused() {
        return refused;
    }

    public synchronized long unanswered() {
        return unanswered;
    }

    /** One more execution belongs to this window. */
    public synchronized void expectOne() {
        expected++;
    }

    public synchronized long expected() {
        return expected;
    }

    /** Executions that ended, successfully or not. */
    public synchronized long completed() {
        return histogram.getTotalCount() + failures;
    }

    /** Failed executions plus those that never ended. */
    public synchronized long failuresAndMissing() {
        return failures + unfinished();
    }

    /** Executions of this window that have not ended (yet). */
    public synchronized long unfinished() {
        return Math.max(0, expected - completed());
    }

    /** The latency at a percentile (0..100) in milliseconds; NaN when nothing succeeded. */
    public synchronized double percentileMs(double percentile) {
        if (histogram.getTotalCount() == 0) {
            return Double.NaN;
        }
        return histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    public synchronized double maxMs() {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMaxValue() / 1_000.0;
    }
}
