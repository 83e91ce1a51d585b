package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.config.ConfigLoader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SettingTest {

    @Test
    void shouldCompareEveryCombinationOfTheListedSettings() {
        // given
        var lists = new LinkedHashMap<String, List<?>>();
        lists.put("processing-guarantee", List.of("exactly_once_v2", "at_least_once"));
        lists.put("stream-threads", List.of());
        lists.put("commit-interval-ms", List.of(20, 100));

        // when
        List<Setting> settings = Setting.combinations(lists, List.of(1, 2), Map.of("poll-ms", "0"));

        // then
        assertThat(settings).hasSize(8);
        assertThat(settings.getFirst().guarantee("?")).isEqualTo("exactly_once_v2");
        assertThat(settings.getFirst().describe()).isEqualTo("commit-interval-ms=20 poll-ms=0");
        assertThat(settings.get(1).describe()).isEqualTo("commit-interval-ms=20 executors=2 poll-ms=0");
        assertThat(settings.getLast().guarantee("?")).isEqualTo("at_least_once");
        assertThat(settings.getLast().engineSettings("p.")).containsEntry("commit-interval-ms", "100")
                .containsEntry("poll-ms", "0").containsEntry("topic-prefix", "p.").doesNotContainKey("stream-threads");
    }

    @Test
    void shouldCompareAnyEngineSettingGivenWithVary() {
        // given
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--processing-guarantee", "at_least_once,exactly_once_v2",
                "--vary", "kafka.producer.linger.ms=0,1", "--set", "poll-ms=2");

        // when
        List<Setting> settings = command.settings();

        // then
        assertThat(settings).extracting(Setting::describe).containsExactly(
                "kafka.producer.linger.ms=0 poll-ms=2", "kafka.producer.linger.ms=1 poll-ms=2",
                "kafka.producer.linger.ms=0 poll-ms=2", "kafka.producer.linger.ms=1 poll-ms=2");
        assertThat(settings.get(1).engineSettings("p.")).containsEntry("kafka.producer.linger.ms", "1");
        assertThat(settings.get(2).guarantee("?")).isEqualTo("exactly_once_v2");
    }

    @Test
    void shouldStartExecutionsWithTheLingerOfTheEngineProducers() {
        // given
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--processing-guarantee", "exactly_once_v2,at_least_once",
                "--set", "kafka.producer.linger.ms=5");
        var defaults = new BenchCommand("unused");
        new CommandLine(defaults).parseArgs("--processing-guarantee", "exactly_once_v2,at_least_once");

        // when
        List<Integer> told = lingers(command);
        List<Integer> byGuarantee = lingers(defaults);

        // then
        assertThat(told).containsExactly(5, 5);
        assertThat(byGuarantee).containsExactly(1, 0);
    }

    private static List<Integer> lingers(BenchCommand command) {
        return command.settings().stream()
                .map(s -> BenchCommand.producerLingerMs(ConfigLoader.load(Map.of(), s.engineSettings("p."), null))).toList();
    }

    @Test
    void shouldRunTheDefaultsWhenNothingIsListed() {
        List<Setting> settings = Setting.combinations(Map.of("partitions", List.of()), List.of(), Map.of());

        assertThat(settings).singleElement().satisfies(s -> {
            assertThat(s.describe()).isEmpty();
            assertThat(s.executors()).isEqualTo(1);
            assertThat(s.guarantee("exactly_once_v2")).isEqualTo("exactly_once_v2");
        });
    }

    @Test
    void shouldRefuseFewerThanOneExecutor() {
        assertThatThrownBy(() -> Setting.combinations(Map.of(), List.of(0), Map.of()))
                .hasMessageContaining("--executors must be at least 1");
    }

    @Test
    void shouldParseShortAndIsoDurations() {
        var converter = new BenchCommand.DurationConverter();

        assertThat(converter.convert("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(converter.convert("PT1.5S")).isEqualTo(Duration.ofMillis(1_500));
        assertThatThrownBy(() -> converter.convert("soon")).isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("'soon' is not a duration");
    }
}
