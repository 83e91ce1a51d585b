package io.millrace.core.decide;

import io.millrace.core.flow.TaskDef;
import java.util.List;

/**
 * The children a flowable's main branch may run, as lanes: each lane runs its children one after the other, and at
 * most {@code concurrency} lanes run at once (0: all). A Sequential is one lane; a Parallel one lane per task; a
 * ForEach one lane per iteration. Disabled tasks are left out: they get no run.
 */
record Plan(List<Lane> lanes, int concurrency) {

    /** One child to run: a task, for a loop value and iteration (both null outside loops). */
    record Child(TaskDef task, String value, Integer iteration) {
    }

    record Lane(List<Child> children) {
    }

    static Plan sequence(List<TaskDef> tasks) {
        return new Plan(List.of(lane(tasks, null, null)), 1);
    }

    static Plan eachApart(List<TaskDef> tasks, int concurrency) {
        return new Plan(tasks.stream().filter(t -> !t.disabled())
                .map(t -> new Lane(List.of(new Child(t, null, null)))).toList(), concurrency);
    }

    static Lane lane(List<TaskDef> tasks, String value, Integer iteration) {
        return new Lane(tasks.stream().filter(t -> !t.disabled()).map(t -> new Child(t, value, iteration)).toList());
    }
}
