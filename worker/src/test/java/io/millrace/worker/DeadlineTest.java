package io.millrace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeadlineTest {
    private static final Duration LIMIT = Duration.ofHours(1);

    @Test
    void shouldKeepATasksOwnTimeoutUpToTheLimit() {
        assertThat(Deadline.of(Duration.ofMinutes(5), LIMIT))
                .isEqualTo(new Deadline(Duration.ofMinutes(5), "Timeout after PT5M"));
        assertThat(Deadline.of(LIMIT, LIMIT)).isEqualTo(new Deadline(LIMIT, "Timeout after PT1H"));
    }

    @Test
    void shouldEndATaskWithoutATimeoutOrWithALongerOneAtTheLimitAndSaySo() {
        assertThat(Deadline.of(null, LIMIT))
                .isEqualTo(new Deadline(LIMIT, "Timeout after PT1H, the worker's limit task-max-duration"));
        assertThat(Deadline.of(Duration.ofHours(2), LIMIT)).isEqualTo(new Deadline(LIMIT,
                "Timeout after PT1H, the worker's limit task-max-duration (shorter than its timeout PT2H)"));
    }
}
