package io.millrace.core.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScheduleSpecTest {

    private static ScheduleSpec spec(Map<String, Object> properties) {
        var problems = new ArrayList<String>();
        ScheduleSpec spec = ScheduleSpec.read(properties, "here", problems);
        assertThat(problems).isEmpty();
        return spec;
    }

    @Test
    void shouldGiveTheDatesOfAFiveFieldCronInItsTimezoneAsKestraFormatsThem() {
        // given: every day at 9:00 in New York
        ScheduleSpec spec = spec(Map.of("cron", "0 9 * * *", "timezone", "America/New_York"));
        Instant noonUtc = Instant.parse("2026-01-05T12:00:00Z");

        // when
        Instant next = spec.next(noonUtc).orElseThrow();

        // then: 9:00 in New York is 14:00 UTC in winter
        assertThat(next).isEqualTo(Instant.parse("2026-01-05T14:00:00Z"));
        assertThat(spec.previous(noonUtc)).contains(Instant.parse("2026-01-04T14:00:00Z"));
        assertThat(spec.variables(next)).containsExactly(
                Map.entry("date", "2026-01-05T09:00:00-05:00"),
                Map.entry("next", "2026-01-06T09:00:00-05:00"),
                Map.entry("previous", "2026-01-04T09:00:00-05:00"));
        assertThat(spec.recover()).isEqualTo(ScheduleSpec.Recover.ALL);
    }

    @Test
    void shouldReadNicknamesSecondsFirstAndSundayAsZeroOrSeven() {
        // given
        Instant at = Instant.parse("2026-01-05T12:00:07Z"); // a Monday

        // then
        assertThat(spec(Map.of("cron", "@hourly")).next(at)).contains(Instant.parse("2026-01-05T13:00:00Z"));
        assertThat(spec(Map.of("cron", "@daily")).next(at)).contains(Instant.parse("2026-01-06T00:00:00Z"));
        assertThat(spec(Map.of("cron", "*/10 * * * * *", "withSeconds", true)).next(at))
                .contains(Instant.parse("2026-01-05T12:00:10Z"));
        assertThat(spec(Map.of("cron", "0 0 * * 0")).next(at)).contains(Instant.parse("2026-01-11T00:00:00Z"));
        assertThat(spec(Map.of("cron", "0 0 * * 7")).next(at)).contains(Instant.parse("2026-01-11T00:00:00Z"));
        assertThat(spec(Map.of("cron", "0 0 * * 1")).next(at)).contains(Instant.parse("2026-01-12T00:00:00Z"));
    }

    @Test
    void shouldNameEachBadProperty() {
        // given
        var problems = new ArrayList<String>();

        // when
        ScheduleSpec spec = ScheduleSpec.read(Map.of("cron", "* * *", "lateMaximumDelay", "5m", "inputs", "x"), "here",
                problems);

        // then
        assertThat(spec).isNull();
        assertThat(problems).hasSize(3);
        assertThat(problems.get(0)).startsWith("Invalid cron expression '* * *' at here.cron: ");
        assertThat(problems.subList(1, 3)).containsExactly(
                "Expected here.lateMaximumDelay to be an ISO-8601 duration such as PT5M",
                "Expected here.inputs to be a mapping");
    }
}
