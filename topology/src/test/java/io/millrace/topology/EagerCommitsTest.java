package io.millrace.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.config.ConfigLoader;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EagerCommitsTest {
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void shouldAskForACommitForEveryEndBelowTheRate() {
        // given
        var eager = new EagerCommits(3, 20);

        // when / then: two ends in each of three seconds
        for (long at : new long[] {T0, T0 + 500, T0 + 1_000, T0 + 1_500, T0 + 2_000, T0 + 2_500}) {
            assertThat(eager.ended(at, at)).as("end at +%d ms", at - T0).isTrue();
        }
    }

    @Test
    void shouldStopAskingWithinASecondOnceTheRateIsReached() {
        // given
        var eager = new EagerCommits(3, 20);
        eager.ended(T0, T0);
        eager.ended(T0 + 10, T0 + 10);
        eager.ended(T0 + 20, T0 + 20);

        // when
        boolean fourth = eager.ended(T0 + 30, T0 + 30);

        // then
        assertThat(fourth).isFalse();
    }

    @Test
    void shouldNotAskForAWholeSecondAfterASecondAtTheRate() {
        // given
        EagerCommits eager = afterABusySecond();

        // when: the first end of the next second
        boolean next = eager.ended(T0 + 1_100, T0 + 1_100);

        // then
        assertThat(next).isFalse();
    }

    @Test
    void shouldAskAgainAfterAQuietSecond() {
        // given
        EagerCommits eager = afterABusySecond();

        // when: nothing ended in the second after the busy one
        boolean later = eager.ended(T0 + 2_500, T0 + 2_500);

        // then
        assertThat(later).isTrue();
    }

    @Test
    void shouldAskAgainWhenTheRateFalls() {
        // given: a busy second, then a second with one end
        EagerCommits eager = afterABusySecond();
        eager.ended(T0 + 1_500, T0 + 1_500);

        // when
        boolean third = eager.ended(T0 + 2_100, T0 + 2_100);

        // then
        assertThat(third).isTrue();
    }

    @Test
    void shouldNotAskForAnEndDecidedOnARecordThatWaitedLongerThanTheInterval() {
        // given
        var eager = new EagerCommits(3, 20);

        // when
        boolean late = eager.ended(T0 + 1_000, T0 + 979);
        boolean onTime = eager.ended(T0 + 1_010, T0 + 990);

        // then
        assertThat(late).isFalse();
        assertThat(onTime).isTrue();
    }

    @Test
    void shouldFollowTheConfigurationUnderExactlyOnceOnly() {
        // given
        Map<String, String> settings = Map.of("eager-commit-below-per-s", "2", "commit-interval-ms", "50");
        var exactlyOnce = EagerCommits.of(ConfigLoader.load(Map.of(), settings, null));
        var atLeastOnce = EagerCommits.of(ConfigLoader.load(Map.of(), withGuarantee(settings, "at_least_once"), null));

        // when: records that waited 50 ms, then 51 ms; then a third end in the second
        boolean waited50 = exactlyOnce.ended(T0 + 50, T0);
        boolean waited51 = exactlyOnce.ended(T0 + 51, T0);
        boolean third = exactlyOnce.ended(T0 + 52, T0 + 52);

        // then
        assertThat(waited50).isTrue();
        assertThat(waited51).isFalse();
        assertThat(third).isFalse();
        assertThat(atLeastOnce.ended(T0, T0)).isFalse();
    }

    private static Map<String, String> withGuarantee(Map<String, String> settings, String guarantee) {
        var all = new HashMap<>(settings);
        all.put("processing-guarantee", guarantee);
        return all;
    }

    @Test
    void shouldNeverAskWhenOff() {
        // given
        var eager = new EagerCommits(0, 20);

        // when
        boolean first = eager.ended(T0, T0);

        // then
        assertThat(first).isFalse();
    }

    /** A rate of 3 a second, after four ends in the second from T0. */
    private static EagerCommits afterABusySecond() {
        var eager = new EagerCommits(3, 20);
        for (int i = 0; i < 4; i++) {
            eager.ended(T0 + i * 100, T0 + i * 100);
        }
        return eager;
    }
}
