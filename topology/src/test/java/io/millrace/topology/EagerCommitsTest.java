package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.config.ConfigLoader;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EagerCommitsTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long MS = 1_000_000L;

    @Test
    void shouldAskAtOnceOnAThreadThatHasNotCommittedYet() {
        // given
        var eager = new EagerCommits(50, 20);

        // when
        long at = eager.askAt(T0, T0, new CommitClock());

        // then
        assertThat(at).isEqualTo(T0);
    }

    @Test
    void shouldAskOnceAsLongAgainAsTheLastCommitTookHasPassedSinceItEnded() {
        // given: a commit of 4 ms that ended at T0
        var eager = new EagerCommits(50, 20);
        CommitClock clock = committed(4, T0);

        // when
        long during = eager.askAt(T0 + 1, T0 + 1, clock);
        long after = eager.askAt(T0 + 6, T0 + 6, clock);

        // then: an end 1 ms after the commit waits until 4 ms after it; one 6 ms after is asked at once
        assertThat(during).isEqualTo(T0 + 4);
        assertThat(after).isEqualTo(T0 + 6);
    }

    @Test
    void shouldPauseLongerTheSmallerTheShareOfTheThreadsTimeCommitsMayTake() {
        // given: a commit of 4 ms that ended at T0
        CommitClock clock = committed(4, T0);

        // when / then: at 20 %, four times as long as the commit; at 100 %, no pause
        assertThat(new EagerCommits(20, 20).askAt(T0, T0, clock)).isEqualTo(T0 + 16);
        assertThat(new EagerCommits(100, 20).askAt(T0, T0, clock)).isEqualTo(T0);
    }

    @Test
    void shouldFollowTheLastCommitsDurationAsItChanges() {
        // given
        var eager = new EagerCommits(50, 20);
        CommitClock clock = committed(2, T0);

        // when: a slower commit, then a faster one
        long afterTwo = eager.askAt(T0, T0, clock);
        clock.committing(100 * MS);
        clock.committed(110 * MS, T0 + 20);
        long afterTen = eager.askAt(T0 + 20, T0 + 20, clock);

        // then
        assertThat(afterTwo).isEqualTo(T0 + 2);
        assertThat(afterTen).isEqualTo(T0 + 30);
    }

    @Test
    void shouldRoundACommitsDurationUpToAMillisecond() {
        // given: a commit of 0.3 ms
        var clock = new CommitClock();
        clock.committing(5 * MS);
        clock.committed(5 * MS + 300_000, T0);

        // when / then
        assertThat(clock.durationMillis()).isEqualTo(1);
        assertThat(new EagerCommits(50, 20).askAt(T0, T0, clock)).isEqualTo(T0 + 1);
    }

    @Test
    void shouldNotAskForAnEndDecidedOnARecordThatWaitedLongerThanTheInterval() {
        // given
        var eager = new EagerCommits(50, 20);

        // when
        long late = eager.askAt(T0 + 1_000, T0 + 979, new CommitClock());
        long onTime = eager.askAt(T0 + 1_010, T0 + 990, new CommitClock());

        // then
        assertThat(late).isEqualTo(EagerCommits.NEVER);
        assertThat(onTime).isEqualTo(T0 + 1_010);
    }

    @Test
    void shouldFollowTheConfigurationUnderExactlyOnceOnly() {
        // given
        Map<String, String> settings = Map.of("eager-commit-max-percent", "25", "commit-interval-ms", "50");
        var exactlyOnce = EagerCommits.of(ConfigLoader.load(Map.of(), settings, null));
        var atLeastOnce = EagerCommits.of(ConfigLoader.load(Map.of(), withGuarantee(settings, "at_least_once"), null));
        CommitClock clock = committed(2, T0);

        // when / then: records that waited 50 ms, then 51 ms; a pause of three times the commit
        assertThat(exactlyOnce.askAt(T0 + 50, T0, clock)).isEqualTo(T0 + 50);
        assertThat(exactlyOnce.askAt(T0 + 51, T0, clock)).isEqualTo(EagerCommits.NEVER);
        assertThat(exactlyOnce.askAt(T0 + 1, T0 + 1, clock)).isEqualTo(T0 + 6);
        assertThat(atLeastOnce.askAt(T0, T0, new CommitClock())).isEqualTo(EagerCommits.NEVER);
    }

    @Test
    void shouldNeverAskWhenOff() {
        assertThat(new EagerCommits(0, 20).askAt(T0, T0, new CommitClock())).isEqualTo(EagerCommits.NEVER);
    }

    @Test
    void shouldRefuseAShareOutsideZeroToAHundred() {
        assertThatThrownBy(() -> new EagerCommits(101, 20)).hasMessageContaining("from 0 to 100, but got 101");
    }

    private static Map<String, String> withGuarantee(Map<String, String> settings, String guarantee) {
        var all = new HashMap<>(settings);
        all.put("processing-guarantee", guarantee);
        return all;
    }

    /** A clock whose last commit took {@code millis} and ended at {@code endedAt}. */
    private static CommitClock committed(long millis, long endedAt) {
        var clock = new CommitClock();
        clock.committing(0);
        clock.committed(millis * MS, endedAt);
        return clock;
    }
}
