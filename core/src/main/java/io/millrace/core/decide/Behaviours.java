package io.millrace.core.decide;

import io.millrace.core.flow.AllowFailure;
import io.millrace.core.flow.Flowable;
import io.millrace.core.flow.ForEach;
import io.millrace.core.flow.If;
import io.millrace.core.flow.Parallel;
import io.millrace.core.flow.Pause;
import io.millrace.core.flow.Sequential;
import io.millrace.core.flow.Switch;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** The registry of flowable behaviours, one per flowable type. */
final class Behaviours {
    private final Map<Class<? extends Flowable>, FlowableBehaviour<? extends Flowable>> byType = new HashMap<>();

    Behaviours() {
        register(Sequential.class, new SequentialBehaviour());
        register(Parallel.class, new ParallelBehaviour());
        register(AllowFailure.class, new AllowFailureBehaviour());
        register(If.class, new IfBehaviour());
        register(Switch.class, new SwitchBehaviour());
        register(ForEach.class, new ForEachBehaviour());
        register(Pause.class, new PauseBehaviour());
    }

    private <F extends Flowable> void register(Class<F> type, FlowableBehaviour<F> behaviour) {
        byType.put(type, behaviour);
    }

    @SuppressWarnings("unchecked")
    <F extends Flowable> FlowableBehaviour<F> of(F task) {
        var behaviour = (FlowableBehaviour<F>) byType.get(task.getClass());
        if (behaviour == null) {
            throw new IllegalStateException("Expected a behaviour for " + task.type() + ", but none is registered");
        }
        return behaviour;
    }

    /** The flowable types with a behaviour. */
    Set<Class<? extends Flowable>> types() {
        return byType.keySet();
    }
}
