package io.millrace.worker;

import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import static org.assertj.core.api.Assertions.assertThat;

class Slf4jTaskLoggerTest {

    @Test
    void shouldMapEachOfKestrasLevelsToTheSameSlf4jLevel() {
        // when / then
        assertThat(Slf4jTaskLogger.level("TRACE")).isEqualTo(Level.TRACE);
        assertThat(Slf4jTaskLogger.level("DEBUG")).isEqualTo(Level.DEBUG);
        assertThat(Slf4jTaskLogger.level("INFO")).isEqualTo(Level.INFO);
        assertThat(Slf4jTaskLogger.level("WARN")).isEqualTo(Level.WARN);
        assertThat(Slf4jTaskLogger.level("ERROR")).isEqualTo(Level.ERROR);
    }

    @Test
    void shouldLogUnknownLevelsAtInfoRatherThanLoseThem() {
        // when / then
        assertThat(Slf4jTaskLogger.level("LOUD")).isEqualTo(Level.INFO);
        assertThat(Slf4jTaskLogger.level(null)).isEqualTo(Level.INFO);
    }
}
