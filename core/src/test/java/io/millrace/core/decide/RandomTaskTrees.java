package io.millrace.core.decide;

import io.millrace.core.flow.AllowFailure;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.ForEach;
import io.millrace.core.flow.If;
import io.millrace.core.flow.Parallel;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.RetryPolicy;
import io.millrace.core.flow.Sequential;
import io.millrace.core.flow.Switch;
import io.millrace.core.flow.TaskDef;
import io.millrace.core.flow.TaskOptions;
import io.millrace.core.flow.TaskTypes;
import io.millrace.core.flow.WorkerTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * Random task trees for the replay property test: Log tasks and every flowable, nested up to {@link #MAX_DEPTH}
 * levels, with random errors, finally and options (disabled, runIf, allowFailure, allowWarning, constant retries,
 * flowable timeouts). Ids are unique in the tree, and at most {@code budget} tasks are made, so a case stays small.
 */
final class RandomTaskTrees {
    static final int MAX_DEPTH = 4;
    private static final List<String> VALUES = List.of("a", "b", "c");

    private final Random random;
    private int budget;
    private int lastId;

    RandomTaskTrees(Random random, int budget) {
        this.random = random;
        this.budget = budget;
    }

    /** Up to {@code max} tasks at {@code depth} (1: the flow's own); {@code inLoop}: direct children of a ForEach. */
    List<TaskDef> tasks(int min, int max, int depth, boolean inLoop) {
        int count = min + random.nextInt(max - min + 1);
        var tasks = new ArrayList<TaskDef>();
        for (int i = 0; i < count && (budget > 0 || i < min); i++) {
            tasks.add(task(depth, inLoop));
        }
        return tasks;
    }

    private TaskDef task(int depth, boolean inLoop) {
        budget--;
        if (depth >= MAX_DEPTH || budget <= 2 || random.nextInt(100) < 45) {
            return new WorkerTask(id("w"), TaskTypes.LOG, options(false), Map.of("message", "m"));
        }
        int inner = depth + 1;
        return switch (random.nextInt(7)) {
            case 0 -> new Sequential(id("seq"), options(true), tasks(0, 3, inner, false), errors(inner),
                    finallyTasks(inner));
            case 1 -> new Parallel(id("par"), options(true), random.nextInt(3), tasks(0, 3, inner, false),
                    errors(inner), finallyTasks(inner));
            case 2 -> forEach(inner);
            case 3 -> new If(id("if"), options(true), condition(inLoop), tasks(0, 2, inner, false),
                    tasks(0, 2, inner, false), errors(inner), finallyTasks(inner));
            case 4 -> choice(inner, inLoop);
            case 5 -> pause(inner);
            default -> new AllowFailure(id("allow"), options(true), tasks(0, 3, inner, false), errors(inner),
                    finallyTasks(inner));
        };
    }

    private ForEach forEach(int inner) {
        String id = id("each");
        TaskOptions options = options(true);
        var values = new ArrayList<String>();
        for (int i = random.nextInt(5); i > 0; i--) {
            values.add(VALUES.get(random.nextInt(VALUES.size()))); // equal values come often
        }
        Object given = values;
        if (random.nextInt(4) == 0) {
            given = values.stream().map(v -> '"' + v + '"').collect(Collectors.joining(",", "[", "]"));
        }
        boolean apart = random.nextInt(3) == 0;
        return new ForEach(id, apart ? TaskTypes.EACH_PARALLEL : TaskTypes.FOR_EACH, options, given, random.nextInt(3),
                apart, tasks(0, 2, inner, true), errors(inner), finallyTasks(inner));
    }

    /** A Pause resumed by a call, by a delay, or failed by a timeout, sometimes with tasks of its own. */
    private Pause pause(int inner) {
        String id = id("pause");
        TaskOptions options = options(true).withTimeout(null);
        int roll = random.nextInt(3);
        Duration delay = roll == 1 ? Duration.ofSeconds(1 + random.nextInt(30)) : null;
        Duration timeout = roll == 2 ? Duration.ofSeconds(1 + random.nextInt(30)) : null;
        return new Pause(id, options, delay, timeout, null, tasks(0, 2, inner, false), errors(inner),
                finallyTasks(inner));
    }

    private Switch choice(int inner, boolean inLoop) {
        String id = id("switch");
        TaskOptions options = options(true);
        String value = inLoop && random.nextBoolean() ? "{{ taskrun.value }}" : VALUES.get(random.nextInt(VALUES.size()));
        var cases = new LinkedHashMap<String, List<TaskDef>>();
        for (String key : VALUES.subList(0, random.nextInt(3))) {
            cases.put(key, tasks(0, 2, inner, false));
        }
        List<TaskDef> defaults = random.nextBoolean() ? tasks(0, 2, inner, false) : null;
        return new Switch(id, options, value, cases, defaults, errors(inner), finallyTasks(inner));
    }

    private String condition(boolean inLoop) {
        int roll = random.nextInt(inLoop ? 6 : 5);
        return switch (roll) {
            case 0 -> "true";
            case 1 -> "false";
            case 2 -> "{{ 1 == 1 }}";
            case 3 -> "{{ 1 == 2 }}";
            case 4 -> random.nextBoolean() ? "{{ outputs.nope.value }}" : "true"; // the first does not render: fails the If
            default -> "{{ taskrun.value == 'a' }}";
        };
    }

    private List<TaskDef> errors(int depth) {
        return random.nextInt(10) < 3 ? tasks(1, 2, depth, false) : List.of();
    }

    private List<TaskDef> finallyTasks(int depth) {
        return random.nextInt(10) < 3 ? tasks(1, 2, depth, false) : List.of();
    }

    private TaskOptions options(boolean flowable) {
        RetryPolicy retry = random.nextInt(flowable ? 5 : 4) < (flowable ? 2 : 1)
                ? new RetryPolicy(RetryPolicy.Type.CONSTANT, Duration.ofMillis(100 + random.nextInt(900)), null, 2.0, null,
                        1 + random.nextInt(3), null, random.nextInt(5) == 0, RetryPolicy.Behavior.RETRY_FAILED_TASK)
                : null;
        Duration timeout = flowable && random.nextInt(5) == 0 ? Duration.ofSeconds(1 + random.nextInt(90)) : null;
        String runIf = random.nextInt(8) == 0 ? List.of("true", "false", "{{ 2 > 1 }}").get(random.nextInt(3)) : null;
        return new TaskOptions(retry, timeout, runIf, random.nextInt(7) == 0, random.nextInt(15) == 0,
                random.nextInt(12) == 0, TaskDef.DEFAULT_WORKER_GROUP, null, null);
    }

    private String id(String prefix) {
        return prefix + ++lastId;
    }

    /** A one-line picture of a task list: ids, what each flowable holds, and the options that are set. */
    static String summary(List<TaskDef> tasks) {
        return tasks.stream().map(RandomTaskTrees::summary).collect(Collectors.joining(", ", "[", "]"));
    }

    private static String summary(TaskDef task) {
        var text = new StringBuilder(task.id()).append(options(task.options()));
        switch (task) {
            case WorkerTask worker -> {
                return text.toString();
            }
            case Parallel parallel -> text.append("{concurrent=").append(parallel.concurrent()).append('}');
            case Pause pause -> text.append("{delay=").append(pause.delay()).append(" timeout=").append(pause.timeout())
                    .append('}');
            case ForEach each -> text.append('{').append(each.eachTaskApart() ? "apart " : "").append(each.values())
                    .append(" limit=").append(each.concurrencyLimit()).append('}');
            case If branch -> text.append('{').append(branch.condition()).append(" then=").append(summary(branch.then()))
                    .append(" else=").append(summary(branch.otherwise())).append('}');
            case Switch choice -> {
                text.append('{').append(choice.value());
                choice.cases().forEach((key, value) -> text.append(' ').append(key).append('=').append(summary(value)));
                text.append(" defaults=").append(choice.defaults() == null ? "none" : summary(choice.defaults())).append('}');
            }
            default -> {
            }
        }
        Flowable flowable = (Flowable) task;
        if (!(task instanceof If) && !(task instanceof Switch)) {
            text.append(summary(flowable.mainTasks()));
        }
        if (!flowable.errors().isEmpty()) {
            text.append(" errors=").append(summary(flowable.errors()));
        }
        if (!flowable.finallyTasks().isEmpty()) {
            text.append(" finally=").append(summary(flowable.finallyTasks()));
        }
        return text.toString();
    }

    private static String options(TaskOptions options) {
        var set = new ArrayList<String>();
        if (options.disabled()) {
            set.add("disabled");
        }
        if (options.runIf() != null) {
            set.add("runIf=" + options.runIf());
        }
        if (options.allowFailure()) {
            set.add("allowFailure");
        }
        if (options.allowWarning()) {
            set.add("allowWarning");
        }
        if (options.retry() != null) {
            set.add("retry=" + options.retry().maxAttempt() + "x" + options.retry().interval().toMillis() + "ms"
                    + (options.retry().warningOnRetry() ? " warningOnRetry" : ""));
        }
        if (options.timeout() != null) {
            set.add("timeout=" + options.timeout().toSeconds() + "s");
        }
        return set.isEmpty() ? "" : set.toString().replace('[', '(').replace(']', ')');
    }
}
