package io.millrace.core.decide;

/**
 * Why a command changed nothing. Benign rejections (a duplicate, a stale result) are the normal
 * price of at-least-once delivery; invalid ones are dead-lettered for an operator.
 */
public record Rejection(Kind kind, String reason) {
    public enum Kind { DUPLICATE, STALE, INVALID }

    public boolean benign() {
        return kind != Kind.INVALID;
    }
}
