package io.millrace.core.decide;

import io.millrace.core.event.Event;
import java.util.List;
import java.util.Optional;

/** The answer to one command: events already applied to the state, effects to carry out, or a rejection. */
public record Decision(List<Event> events, List<Effect> effects, Optional<Rejection> rejection) {
    public Decision {
        events = List.copyOf(events);
        effects = List.copyOf(effects);
    }

    public static Decision rejected(Rejection.Kind kind, String reason) {
        return new Decision(List.of(), List.of(), Optional.of(new Rejection(kind, reason)));
    }
}
