package io.millrace.core.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.command.Command;
import io.millrace.core.command.SlotCommand;
import io.millrace.core.command.Timer;
import io.millrace.core.expression.Expressions;
import io.millrace.core.flow.Flowable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The decider only registers and dispatches: every command, timer and flowable has its own handler, in a small file. */
class DeciderRegistryTest {
    /** About the most lines a file of the decision core may have: past it, a part wants a file of its own. */
    private static final int MAX_LINES = 200;

    private final Decider decider = new Decider(new DeciderSettings(Duration.ofSeconds(30), 3, Duration.ofDays(1)),
            new Expressions());

    @Test
    void shouldHaveAHandlerForEveryCommandType() {
        // a flow's concurrency slots decide the slot commands (SlotKeeper, keyed by flow), not the decider
        Class<?>[] executionCommands = Arrays.stream(permitted(Command.class)).filter(c -> c != SlotCommand.class)
                .toArray(Class<?>[]::new);
        assertThat(Set.<Class<?>>copyOf(decider.commandTypes())).containsExactlyInAnyOrder(executionCommands);
    }

    @Test
    void shouldHaveAHandlerForEveryTimerKind() {
        assertThat(decider.timerKinds()).containsExactlyInAnyOrder(Timer.Kind.values());
    }

    @Test
    void shouldHaveABehaviourForEveryFlowableType() {
        assertThat(Set.<Class<?>>copyOf(decider.flowableTypes())).containsExactlyInAnyOrder(permitted(Flowable.class));
    }

    @Test
    void shouldKeepEveryFileOfTheDecisionCoreSmall() throws IOException {
        List<String> tooLong;
        try (Stream<Path> files = Files.list(Path.of("src/main/java/io/millrace/core/decide"))) {
            tooLong = files.filter(f -> f.toString().endsWith(".java") && lines(f) > MAX_LINES)
                    .map(f -> f.getFileName() + " (" + lines(f) + " lines)").toList();
        }
        assertThat(tooLong).as("files of core/decide over %d lines", MAX_LINES).isEmpty();
    }

    private static Class<?>[] permitted(Class<?> sealed) {
        return sealed.getPermittedSubclasses();
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
