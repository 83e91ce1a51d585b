package io.millrace.core.execution;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How a Java failure is told to whoever reads an execution, its errors and its logs: its kind in words and its message,
 * never an exception's class name or a stack trace, which describe the engine, not the flow
 * ({@code UnknownHostException: x} is {@code unknown host: x}). Names of Java's and the engine's own classes in a
 * message keep their simple name only ({@code java.lang.String} is {@code String}). The stack trace belongs in the
 * log of the role that failed, under an error id that the text names.
 */
public final class FailureText {
    /** Qualified names in the JVM's, the engine's and its libraries' packages. */
    private static final Pattern QUALIFIED = Pattern.compile("\\b(?:java|javax|jdk|sun|com\\.sun|kotlin"
            + "|io\\.millrace|io\\.javalin|io\\.pebbletemplates|org\\.apache|org\\.eclipse|com\\.fasterxml|com\\.api)"
            + "\\.(?:[\\w$]+\\.)*([\\w$]+)");
    /** A simple name ending in Exception or Error; a stack frame line, or the "... 3 more" of a cause's frames. */
    private static final Pattern THROWABLE = Pattern.compile("\\b([A-Z][\\w$]*?)(?:Exception|Error)\\b");
    private static final Pattern FRAME = Pattern.compile("(?m)^[ \\t]*(?:at [\\w$.<>/]+\\(.*\\)|\\.\\.\\. \\d+ more)"
            + "[ \\t]*(?:\\r?\\n|$)");

    private FailureText() {
    }

    /** The failure's kind and message: {@code unknown host: nohost.invalid}. */
    public static String describe(Throwable failure) {
        String message = failure.getMessage();
        return kind(failure) + (message == null ? "" : ": " + scrub(message));
    }

    /**
     * The failure's kind in words, from its class's name less {@code Exception} or {@code Error}:
     * {@code SSLHandshakeException} is "ssl handshake", {@code IOException} "I/O", {@code Exception} "failure".
     */
    public static String kind(Throwable failure) {
        return words(failure.getClass().getSimpleName().replaceFirst("(Exception|Error)$", ""));
    }

    /**
     * A text without stack frames ({@code \tat a.B.c(B.java:1)}, {@code ... 3 more}), with the JVM's and the engine's
     * qualified names cut to their simple names, and exception class names put in words ({@code Caused by: timeout}).
     */
    public static String scrub(String text) {
        if (text == null) {
            return null;
        }
        String cut = FRAME.matcher(text).replaceAll("");
        cut = QUALIFIED.matcher(cut).replaceAll(match -> match.group(1).replace("$", "\\$"));
        return THROWABLE.matcher(cut).replaceAll(match -> words(match.group(1)));
    }

    private static String words(String name) {
        if (name.isEmpty()) {
            return "failure";
        }
        if (name.equals("IO") || name.equals("UncheckedIO")) {
            return "I/O";
        }
        return String.join(" ", name.split("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")).toLowerCase(Locale.ROOT);
    }
}
