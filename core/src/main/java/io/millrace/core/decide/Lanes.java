package io.millrace.core.decide;

/**
 * A flowable attempt's plan and how far its lanes are done: lanes before {@code done} have all ended. The plan is made
 * once per attempt (a ForEach renders its values once), and the walk starts at {@code done}, so a step of a loop over
 * thousands of values looks at the lanes that run, not at all of them.
 */
final class Lanes {
    final Plan plan;
    int done;

    Lanes(Plan plan) {
        this.plan = plan;
    }
}
