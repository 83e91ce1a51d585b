package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

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
        ledger.accepted("a", steady, ChaosLedger.Via.KAFKA);
        ledger.accepted("b", ledger.phase(), ChaosLedger.Via.REST);
        ledger.completed("a", "SUCCESS");
        ledger.completed("b", "SUCCESS");

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
        ledger.completed("unacknowledged", "SUCCESS");
        ledger.completed("unacknowledged", "SUCCESS");

        // then
        assertThat(ledger.endedUnacknowledged()).isEqualTo(1);
        assertThat(ledger.doubledUnacknowledged(true)).isEqualTo(1);
        assertThat(ledger.doubledUnacknowledged(false)).isZero();
    }

    /** In phase "worker": one ended once, one lost, one ended twice alike, one with two outcomes. */
    private static ChaosLedger given() {
        var ledger = new ChaosLedger();
        ledger.phase("worker");
        ledger.accepted("once", "worker", ChaosLedger.Via.KAFKA);
        ledger.accepted("lost", "worker", ChaosLedger.Via.KAFKA);
        ledger.accepted("again", "worker", ChaosLedger.Via.REST);
        ledger.accepted("two", "worker", ChaosLedger.Via.TRIGGER);
        ledger.completed("once", "SUCCESS");
        ledger.completed("again", "SUCCESS");
        ledger.completed("again", "SUCCESS");
        ledger.completed("two", "SUCCESS");
        ledger.completed("two", "FAILED");
        ledger.unanswered("worker");
        return ledger;
    }
}
