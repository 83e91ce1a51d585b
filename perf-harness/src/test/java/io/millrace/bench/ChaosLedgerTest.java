package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChaosLedgerTest {
    @Test
    void shouldCountStartsUnderThePhaseTheyWereSentIn() {
        // given
        var ledger = new ChaosLedger();
        ledger.phase("steady");
        String steady = ledger.phase();
        ledger.phase("executor");

        // when: a start sent before the fault is acknowledged after it
        ledger.accepted("a", steady, ChaosLedger.Via.KAFKA, 0);
        ledger.accepted("b", ledger.phase(), ChaosLedger.Via.REST, 0);
        ledger.completed("a", "SUCCESS", 1);
        ledger.completed("b", "SUCCESS", 1);

        // then
        assertThat(ledger.rows("exactly_once_v2", true)).containsExactly(
                new ChaosLedger.Row("exactly_once_v2", "steady", 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0),
                new ChaosLedger.Row("exactly_once_v2", "executor", 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void shouldCountASecondCompletionAsDoubledUnderExactlyOnce() {
        // given
        var ledger = given();

        // then: lost, doubled, and the repeat of one outcome doubled too
        assertThat(ledger.rows("exactly_once_v2", true)).containsExactly(
                new ChaosLedger.Row("exactly_once_v2", "worker", 4, 2, 1, 1, 1, 1, 2, 0, 1, 0, 0));
        assertThat(ledger.faulty(true, 10)).hasSize(3);
    }

    @Test
    void shouldCountTheSameOutcomeSentAgainAsResentUnderAtLeastOnce() {
        // given
        var ledger = given();

        // then: only two different outcomes are a doubling
        assertThat(ledger.rows("at_least_once", false)).containsExactly(
                new ChaosLedger.Row("at_least_once", "worker", 4, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0));
    }

    @Test
    void shouldCountEndingsOfStartsThatWereNeverAcknowledged() {
        // given
        var ledger = given();

        // when
        ledger.completed("unacknowledged", "SUCCESS", 1);
        ledger.completed("unacknowledged", "SUCCESS", 1);

        // then
        assertThat(ledger.endedUnacknowledged()).isEqualTo(1);
        assertThat(ledger.doubledUnacknowledged(true)).isEqualTo(1);
        assertThat(ledger.doubledUnacknowledged(false)).isZero();
    }

    @Test
    void shouldGiveEachEventItsLongestStretchWithNoEndingAndTheLatencyOfTheKafkaStartsSentAfterIt() {
        // given: steady at 0 ms, a kill at 100 ms, the process started again at 300 ms, the load stopped at 500 ms
        var ledger = new ChaosLedger();
        ledger.phase("executor");
        ledger.mark("steady", ms(0));
        ledger.mark("SIGKILL to executor-1", ms(100));
        ledger.mark("executor-1 started again", ms(300));
        ledger.accepted("a", "executor", ChaosLedger.Via.KAFKA, ms(10));
        ledger.completed("a", "SUCCESS", ms(20));
        ledger.accepted("b", "executor", ChaosLedger.Via.KAFKA, ms(50));
        ledger.completed("b", "SUCCESS", ms(60));
        // sent just before the kill, ended after the restart: 330 ms
        ledger.accepted("c", "executor", ChaosLedger.Via.KAFKA, ms(90));
        ledger.completed("c", "SUCCESS", ms(420));
        // sent during the kill, never ended; a REST start does not count in the latency
        ledger.accepted("d", "executor", ChaosLedger.Via.KAFKA, ms(150));
        ledger.accepted("e", "executor", ChaosLedger.Via.REST, ms(200));
        ledger.completed("e", "SUCCESS", ms(430));
        // a second ending of "a" is not a new ending
        ledger.completed("a", "SUCCESS", ms(200));

        // when
        List<ChaosLedger.Pause> pauses = ledger.pauses("exactly_once_v2", ms(500));

        // then: from 60 ms to 420 ms nothing ended, which overlaps every window; after the last ending, 70 ms to the end
        assertThat(pauses).extracting(ChaosLedger.Pause::what)
                .containsExactly("steady", "SIGKILL to executor-1", "executor-1 started again");
        assertThat(pauses).extracting(ChaosLedger.Pause::longestGapMs).containsExactly(360.0, 360.0, 360.0);
        assertThat(pauses).extracting(ChaosLedger.Pause::gapAfterMs).containsExactly(60.0, -40.0, -240.0);
        assertThat(pauses).extracting(ChaosLedger.Pause::atSeconds).containsExactly(0.0, 0.1, 0.3);
        ChaosLedger.Pause steady = pauses.getFirst();
        assertThat(steady.kafkaStarts()).isEqualTo(3);
        assertThat(steady.ended()).isEqualTo(3);
        assertThat(steady.p50Ms()).isCloseTo(10.0, within(0.1));
        assertThat(steady.maxMs()).isCloseTo(330.0, within(0.5));
        ChaosLedger.Pause kill = pauses.get(1);
        assertThat(kill.kafkaStarts()).isEqualTo(1);
        assertThat(kill.ended()).isZero();
        assertThat(kill.p99Ms()).isNaN();
        assertThat(pauses.get(2).kafkaStarts()).isZero();
    }

    @Test
    void shouldCountAWindowWithNoEndingUntilItsEnd() {
        // given: an ending before the event, none after it
        var ledger = new ChaosLedger();
        ledger.phase("broker");
        ledger.accepted("a", "broker", ChaosLedger.Via.KAFKA, ms(0));
        ledger.completed("a", "SUCCESS", ms(5));
        ledger.mark("SIGKILL to broker", ms(10));

        // then
        assertThat(ledger.pauses("at_least_once", ms(1_010))).singleElement()
                .satisfies(p -> assertThat(p.longestGapMs()).isEqualTo(1_005.0))
                .satisfies(p -> assertThat(p.gapAfterMs()).isEqualTo(-5.0));
    }

    private static long ms(long millis) {
        return 1_000_000_000L + millis * 1_000_000L;
    }

    /** In phase "worker": one ended once, one lost, one ended twice alike, one with two outcomes. */
    private static ChaosLedger given() {
        var ledger = new ChaosLedger();
        ledger.phase("worker");
        ledger.accepted("once", "worker", ChaosLedger.Via.KAFKA, 0);
        ledger.accepted("lost", "worker", ChaosLedger.Via.KAFKA, 0);
        ledger.accepted("again", "worker", ChaosLedger.Via.REST, 0);
        ledger.accepted("two", "worker", ChaosLedger.Via.TRIGGER, 0);
        ledger.completed("once", "SUCCESS", 1);
        ledger.completed("again", "SUCCESS", 1);
        ledger.completed("again", "SUCCESS", 1);
        ledger.completed("two", "SUCCESS", 1);
        ledger.completed("two", "FAILED", 1);
        ledger.unanswered("worker");
        return ledger;
    }
}
