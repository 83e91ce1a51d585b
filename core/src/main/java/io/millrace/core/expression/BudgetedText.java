package io.millrace.core.expression;

/**
 * The text a regular expression runs over, spending the render's budget as the expression reads it: a step per
 * {@value Sizes#CHARS_PER_STEP} characters read. Java's regular expressions read their input through
 * {@link #charAt}, and backtrack by reading again, so a catastrophic pattern ({@code (a+)+$} on "aaaa…ab") fails the
 * render at its step or time limit instead of holding the thread for hours.
 */
final class BudgetedText implements CharSequence {

    private final String text;
    private final RenderBudget budget = RenderBudget.current();
    private int unspentReads;

    BudgetedText(String text) {
        this.text = text;
    }

    @Override
    public char charAt(int index) {
        if (++unspentReads == Sizes.CHARS_PER_STEP) {
            unspentReads = 0;
            budget.spend(1);
        }
        return text.charAt(index);
    }

    @Override
    public int length() {
        return text.length();
    }

    /** A part of the text, as a String: what a match or a split returns, never read by the expression again. */
    @Override
    public CharSequence subSequence(int start, int end) {
        return text.substring(start, end);
    }

    @Override
    public String toString() {
        return text;
    }
}
