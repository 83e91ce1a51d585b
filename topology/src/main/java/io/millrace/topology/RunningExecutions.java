package io.millrace.topology;

import java.util.HashSet;
import java.util.Set;

/**
 * The executions of one stream task known to run, and how many more may start now ({@code max-running-executions};
 * 0: no bound). An execution is known once a command of its finds it running (its create, a result, a timer) and
 * forgotten once one finds it ended or gone.
 *
 * <p>Kept in memory only, and empty after a start: a counter in a store would drift under at-least-once replays, and
 * reading every stored execution at a start would cost a scan of the retention's executions. So after a restart the
 * executions that were running are counted again as their next result, heartbeat or timer comes (within a lease for
 * any with a worker task), and until then up to the bound more may start beside them.
 */
final class RunningExecutions {
    private final int max;
    private final Set<String> ids = new HashSet<>();

    /** @param max the most running executions; 0: no bound */
    RunningExecutions(int max) {
        this.max = max;
    }

    /** What a command left its execution as: running, or not (ended, purged, never created). */
    void seen(String executionId, boolean running) {
        if (running) {
            ids.add(executionId);
        } else {
            ids.remove(executionId);
        }
    }

    int size() {
        return ids.size();
    }

    /** Whether there is a bound at all. */
    boolean bounded() {
        return max > 0;
    }

    /** How many more may start now; {@link Integer#MAX_VALUE} without a bound. */
    int free() {
        return max == 0 ? Integer.MAX_VALUE : Math.max(0, max - ids.size());
    }
}
