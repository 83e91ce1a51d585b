package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The judgement of the poison suite's restart phase: nothing spinning, every accepted execution ended exactly once. */
class PoisonRestartTest {

    @Test
    void shouldPassAnIdleEngineAndFailASpinningOne() {
        // given
        var idle = new CpuUse(4.2, Map.of(EnginePart.EXECUTOR, 1.0, EnginePart.JVM, 3.2));
        var spinning = new CpuUse(98.0, Map.of(EnginePart.WORKERS, 95.0, EnginePart.JVM, 3.0));

        // when / then
        assertThat(PoisonRestart.idle(idle, 1).passed()).isTrue();
        assertThat(PoisonRestart.idle(idle, 1).outcome()).isEqualTo("4.2 % of one core over 10 s");
        assertThat(PoisonRestart.idle(spinning, 1).passed()).as("a thread that spins").isFalse();
        assertThat(PoisonRestart.idle(spinning, 1).detail()).startsWith("at most 50 %").contains("most: workers 95.0 %");
        assertThat(PoisonRestart.idle(new CpuUse(51.0, Map.of()), 1).passed()).isFalse();
        assertThat(PoisonRestart.idle(new CpuUse(51.0, Map.of()), 2).passed()).as("50 % a process").isTrue();
        assertThat(PoisonRestart.idle(CpuUse.UNKNOWN, 1).passed()).as("nothing measured").isFalse();
    }

    @Test
    void shouldPassWhenEveryAcceptedExecutionEndedOnce() {
        // given
        var ledger = ledger();

        // when
        PoisonBench.Check check = PoisonRestart.exactlyOnce(ledger.rows("", true), ledger.faulty(true, 5));

        // then
        assertThat(check.passed()).isTrue();
        assertThat(check.outcome()).isEqualTo("3 accepted: 3 once, 0 lost, 0 doubled");
        assertThat(check.detail()).isEqualTo("clean window 1 (Kafka 1, REST 0); poison window 2 (Kafka 1, REST 1)");
    }

    @Test
    void shouldFailADoubledExecution() {
        // given: the poison execution ended again after the restart
        var ledger = ledger();
        ledger.completed("poison-1", "FAILED", 1);

        // when
        PoisonBench.Check check = PoisonRestart.exactlyOnce(ledger.rows("", true), ledger.faulty(true, 5));

        // then
        assertThat(check.passed()).isFalse();
        assertThat(check.outcome()).isEqualTo("3 accepted: 2 once, 0 lost, 1 doubled");
        assertThat(check.detail()).contains("poison-1 (poison window, rest): ended [FAILED, FAILED]");
    }

    @Test
    void shouldFailALostExecution() {
        // given: a start of the poisoned window that never ended
        var ledger = ledger();
        ledger.accepted("w1-3", PoisonBench.POISONED, ChaosLedger.Via.KAFKA, 0);

        // when
        PoisonBench.Check check = PoisonRestart.exactlyOnce(ledger.rows("", true), ledger.faulty(true, 5));

        // then
        assertThat(check.passed()).isFalse();
        assertThat(check.outcome()).isEqualTo("4 accepted: 3 once, 1 lost, 0 doubled");
        assertThat(check.detail()).contains("w1-3 (poison window, kafka): never ended");
    }

    @Test
    void shouldAllowTheSameOutcomeSentAgainOnlyUnderAtLeastOnce() {
        // given
        var ledger = ledger();
        ledger.completed("w1-1", "SUCCESS", 1);

        // when / then
        assertThat(PoisonRestart.exactlyOnce(ledger.rows("", false), List.of()).passed()).isTrue();
        assertThat(PoisonRestart.exactlyOnce(ledger.rows("", false), List.of()).outcome()).endsWith(", 1 re-sent");
        assertThat(PoisonRestart.exactlyOnce(ledger.rows("", true), List.of()).passed()).isFalse();
    }

    @Test
    void shouldFailWhenNothingWasAccepted() {
        assertThat(PoisonRestart.exactlyOnce(new ChaosLedger().rows("", true), List.of()).passed()).isFalse();
    }

    @Test
    void shouldFailAPoisonExecutionThatDidNotStayAsItEnded() {
        // given
        var poisons = List.of(new PoisonRestart.Ended("endless-jsonata", "p1", "FAILED"),
                new PoisonRestart.Ended("long-sleep", "p2", "FAILED"));

        // when / then
        assertThat(PoisonRestart.stayed(poisons, Map.of("p1", "FAILED", "p2", "FAILED")).passed()).isTrue();
        PoisonBench.Check rerun = PoisonRestart.stayed(poisons, Map.of("p1", "RUNNING", "p2", "FAILED"));
        assertThat(rerun.passed()).isFalse();
        assertThat(rerun.outcome()).isEqualTo("1 of 2 as they ended");
        assertThat(rerun.detail()).endsWith("but endless-jsonata p1: FAILED, then RUNNING");
        assertThat(PoisonRestart.stayed(poisons, Map.of("p1", "FAILED", "p2", "HTTP 404")).passed()).isFalse();
        assertThat(PoisonRestart.stayed(List.of(), Map.of()).passed()).as("no poison execution ended").isFalse();
    }

    /** One W1 start in each window and one poison execution, each ended once. */
    private static ChaosLedger ledger() {
        var ledger = new ChaosLedger();
        ledger.phase(PoisonBench.CLEAN);
        ledger.accepted("w1-1", PoisonBench.CLEAN, ChaosLedger.Via.KAFKA, 0);
        ledger.phase(PoisonBench.POISONED);
        ledger.accepted("w1-2", PoisonBench.POISONED, ChaosLedger.Via.KAFKA, 0);
        ledger.accepted("poison-1", PoisonBench.POISONED, ChaosLedger.Via.REST, 0);
        ledger.completed("w1-1", "SUCCESS", 1);
        ledger.completed("w1-2", "SUCCESS", 1);
        ledger.completed("poison-1", "FAILED", 1);
        return ledger;
    }
}
