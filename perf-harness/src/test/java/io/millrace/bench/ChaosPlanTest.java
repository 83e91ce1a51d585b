package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChaosPlanTest {

    @Test
    void shouldEndEveryRestWaitBeforeTheNextFault() {
        // given: the default pause, and a pause longer than the gateway's wait-timeout
        var brief = ChaosBench.Plan.of(100, List.of(), Duration.ZERO, Duration.ofSeconds(10), Duration.ofSeconds(90), "p.", Map.of());
        var lengthy = ChaosBench.Plan.of(100, List.of(), Duration.ZERO, Duration.ofMinutes(2), Duration.ofSeconds(90), "p.", Map.of());

        // when / then: a wait never spans the pause after a fault, so no kill cuts one off
        assertThat(brief.restWait()).isEqualTo(Duration.ofSeconds(10));
        assertThat(lengthy.restWait()).isEqualTo(ChaosLoad.MAX_REST_WAIT);
    }
}
