package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.core.command.KillExecution;
import io.millrace.core.decide.Decision;
import io.millrace.core.decide.Effect;
import io.millrace.core.event.Event;
import io.millrace.core.event.ExecutionCompleted;
import io.millrace.core.execution.State;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AwaitedCommitsTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AwaitedCommits commits = new AwaitedCommits(context, new EagerCommits(50, 20),
            new ExecutorMetrics(registry, "millrace."));

    @AfterEach
    void forgetThisThreadsCommits() {
        CommitClock.forgetThisThread();
    }

    @Test
    void shouldAskForACommitWhenADecisionSendsTheExecutorACommand() {
        // given: a subflow's notice to its parent is read by the executor, committed records only
        commits.reading(NOW.toEpochMilli());

        // when
        commits.ifAwaited(decision(List.of(), new Effect.SendCommand(new KillExecution("parent", NOW, false))), NOW);

        // then
        assertThat(context.committed()).isTrue();
    }

    @Test
    void shouldAskForACommitWhenADecisionStopsTasks() {
        // given
        commits.reading(NOW.toEpochMilli());

        // when
        commits.ifAwaited(decision(List.of(), new Effect.StopTasks("e1", NOW)), NOW);

        // then
        assertThat(context.committed()).isTrue();
    }

    @Test
    void shouldAskForACommitWhenAnExecutionEnds() {
        // given
        commits.reading(NOW.toEpochMilli());

        // when
        commits.ifAwaited(decision(List.of(new ExecutionCompleted(State.SUCCESS, Map.of(), null, NOW))), NOW);

        // then
        assertThat(context.committed()).isTrue();
    }

    @Test
    void shouldNotAskForACommitForWhatOnlyWorkersOrNoOneWaitsFor() {
        // given
        commits.reading(NOW.toEpochMilli());

        // when: a decision with neither an end, a command nor a kill (a dispatch's workers read before the commit)
        commits.ifAwaited(decision(List.of()), NOW);

        // then
        assertThat(context.committed()).isFalse();
    }

    @Test
    void shouldNotAskForACommitForWhatAPunctuationDecided() {
        // given
        commits.punctuating();

        // when
        commits.ifAwaited(decision(List.of(new ExecutionCompleted(State.SUCCESS, Map.of(), null, NOW))), NOW);

        // then
        assertThat(context.committed()).isFalse();
    }

    private static Decision decision(List<Event> events, Effect... effects) {
        return new Decision(events, List.of(effects), Optional.empty());
    }
}
