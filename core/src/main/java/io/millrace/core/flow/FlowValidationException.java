package io.millrace.core.flow;

import java.util.List;

/** A flow that cannot be accepted; each problem names what is wrong and where. */
public final class FlowValidationException extends Exception {
    private final List<String> problems;

    public FlowValidationException(List<String> problems) {
        super("Invalid flow: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
