package io.millrace.core.execution;

/**
 * Where an execution comes from when another one made it: a retry of a failed execution as a new one (a retry's
 * {@code CREATE_NEW_EXECUTION}) names the first execution of the chain, {@code originalId}, and counts its
 * {@code attempt} from 1 (the first). Kestra's {@code originalId} and {@code metadata.attemptNumber}.
 */
public record Lineage(String originalId, int attempt) {
    /** An execution no other one made. */
    public static final Lineage FIRST = new Lineage(null, 1);

    public Lineage {
        if (attempt < 1) {
            throw new IllegalArgumentException("Expected an attempt of 1 or more, but got " + attempt);
        }
    }

    /** The lineage of the execution that retries the one with this lineage and id {@code executionId}. */
    public Lineage next(String executionId) {
        return new Lineage(originalId == null ? executionId : originalId, attempt + 1);
    }
}
