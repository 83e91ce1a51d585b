package io.millrace.core.flow;

import java.util.ArrayList;
import java.util.List;

/**
 * A task the executor resolves itself: it starts child runs and ends by what they did. Every flowable may have
 * {@code errors} (run when its tasks failed; it still ends FAILED) and {@code finally} (run at its end, whatever
 * happened).
 */
public sealed interface Flowable extends TaskDef permits Sequential, Parallel, ForEach, If, Switch, AllowFailure,
        Pause {

    List<TaskDef> errors();

    List<TaskDef> finallyTasks();

    /** The tasks of the main branch or branches, in declaration order. */
    List<TaskDef> mainTasks();

    @Override
    default List<TaskDef> children() {
        var all = new ArrayList<TaskDef>(mainTasks());
        all.addAll(errors());
        all.addAll(finallyTasks());
        return all;
    }
}
