package io.millrace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.millrace.config.ConfigLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
        List<Setting> settings = Setting.combinations(lists, List.of(1, 2), List.of(), Map.of("poll-ms", "0"));

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
    void shouldGiveJavaOptionsToTheEngineJvmsNotToTheEngine() {
        // given
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--vary", "java-options=-XX:MaxTenuringThreshold=15 -Xmx1g,-XX:MaxTenuringThreshold=2");

        // when
        List<Setting> settings = command.settings();

        // then: told apart in the results, left out of the engine's settings
        assertThat(settings).extracting(Setting::describe).containsExactly(
                "java-options=-XX:MaxTenuringThreshold=15 -Xmx1g", "java-options=-XX:MaxTenuringThreshold=2");
        assertThat(settings).extracting(Setting::javaOptions).containsExactly(
                List.of("-XX:MaxTenuringThreshold=15", "-Xmx1g"), List.of("-XX:MaxTenuringThreshold=2"));
        assertThat(settings.getFirst().engineSettings("p.")).doesNotContainKey(Setting.JAVA_OPTIONS);
        assertThat(new BenchCommand("unused").settings().getFirst().javaOptions()).isEmpty();
    }

    @Test
    void shouldRunEverySettingAgainInReverseOrderWhenAskedForBothOrders() {
        // given
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--engine-jar", "a=/tmp/a.jar,b=/tmp/b.jar", "--both-orders");

        // when
        List<Setting> settings = command.settings();

        // then
        assertThat(settings).extracting(Setting::describe).containsExactly(
                "engine=a pass=1", "engine=b pass=1", "engine=b pass=2", "engine=a pass=2");
    }

    @Test
    void shouldStartExecutionsAsTheGatewaySendsThem() {
        // given
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--processing-guarantee", "exactly_once_v2,at_least_once",
                "--set", "kafka.producer.linger.ms=5");
        var defaults = new BenchCommand("unused");
        new CommandLine(defaults).parseArgs("--processing-guarantee", "exactly_once_v2,at_least_once");

        // when
        List<Map<String, Object>> told = starters(command);
        List<Map<String, Object>> byGuarantee = starters(defaults);

        // then
        assertThat(told).extracting(p -> p.get(ProducerConfig.LINGER_MS_CONFIG)).containsExactly("5", "5");
        assertThat(byGuarantee).extracting(p -> p.get(ProducerConfig.LINGER_MS_CONFIG)).containsExactly(0, 0);
        assertThat(byGuarantee).extracting(p -> p.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION))
                .containsExactly(1, null);
    }

    private static List<Map<String, Object>> starters(BenchCommand command) {
        return command.settings().stream()
                .map(s -> BenchCommand.starterProducer(ConfigLoader.load(Map.of(), s.engineSettings("p."), null))).toList();
    }

    @Test
    void shouldRunTheDefaultsWhenNothingIsListed() {
        List<Setting> settings = Setting.combinations(Map.of("partitions", List.of()), List.of(), List.of(), Map.of());

        assertThat(settings).singleElement().satisfies(s -> {
            assertThat(s.describe()).isEmpty();
            assertThat(s.executors()).isEqualTo(1);
            assertThat(s.guarantee("exactly_once_v2")).isEqualTo("exactly_once_v2");
            assertThat(s.build()).isEqualTo(EngineBuild.OWN);
        });
    }

    @Test
    void shouldStartOneEngineFromEachJarForEverySettingOneAfterTheOther() {
        // given
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--engine-jar", "before=/tmp/before/app/target/millrace.jar,app/target/after.jar",
                "--processing-guarantee", "at_least_once,exactly_once_v2");

        // when
        List<Setting> settings = command.settings();

        // then: the builds of one setting are neighbours in time
        assertThat(settings).extracting(s -> s.guarantee("?") + " " + s.describe()).containsExactly(
                "at_least_once engine=before", "at_least_once engine=after.jar",
                "exactly_once_v2 engine=before", "exactly_once_v2 engine=after.jar");
        assertThat(settings).extracting(s -> s.build().jar()).containsExactly(
                Path.of("/tmp/before/app/target/millrace.jar"), Path.of("app/target/after.jar"),
                Path.of("/tmp/before/app/target/millrace.jar"), Path.of("app/target/after.jar"));
        assertThat(settings.getFirst().engineSettings("p.")).doesNotContainKey("engine");
    }

    @Test
    void shouldLabelJarsOfTheSameNameByTheirPath() {
        List<EngineBuild> builds = EngineBuild.parse(List.of("/tmp/before/app/target/millrace.jar", "app/target/millrace.jar"));

        assertThat(builds).extracting(EngineBuild::label)
                .containsExactly("/tmp/before/app/target/millrace.jar", "app/target/millrace.jar");
    }

    @Test
    void shouldRefuseTwoJarsOfOneLabel() {
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--engine-jar", "a=/tmp/one.jar,a=/tmp/two.jar");

        assertThatThrownBy(command::settings).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("Expected every --engine-jar to have a label of its own, but 'a' names /tmp/one.jar and /tmp/two.jar");
        assertThatThrownBy(() -> EngineBuild.parse(List.of("a="))).hasMessageContaining("path or label=path");
    }

    @Test
    void shouldRefuseAJarThatIsNotThere(@TempDir Path dir) {
        var command = new BenchCommand("unused");
        new CommandLine(command).parseArgs("--engine-jar", "gone=" + dir.resolve("gone.jar"), "--out", dir.toString());

        assertThatThrownBy(command::call).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("Expected the engine jar of 'gone' at " + dir.resolve("gone.jar"));
    }

    @Test
    void shouldSweepEachWorkloadAtItsStandardRatesUnlessTold() {
        // given
        var standard = new BenchCommand("unused");
        new CommandLine(standard).parseArgs();
        var loop = new BenchCommand("unused");
        new CommandLine(loop).parseArgs("--workload", "W5");
        var branches = new BenchCommand("unused");
        new CommandLine(branches).parseArgs("--workload", "W6", "--duration", "20s");
        var told = new BenchCommand("unused");
        new CommandLine(told).parseArgs("--workload", "W5", "--rates", "3,120/min");

        // when / then
        assertThat(standard.sweep().ratesPerS()).containsExactly(50.0, 100.0, 200.0, 400.0, 800.0, 1600.0);
        assertThat(standard.sweep().duration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(standard.sweep().drain()).isEqualTo(Duration.ofSeconds(10));
        assertThat(loop.sweep().ratesPerS()).containsExactly(1.0, 2.0, 5.0, 10.0, 15.0, 20.0);
        assertThat(loop.sweep().drain()).isEqualTo(Duration.ofSeconds(30));
        assertThat(branches.sweep().ratesPerS().getFirst()).isCloseTo(100 / 60.0, within(1e-9));
        assertThat(branches.sweep().ratesPerS().get(3)).isCloseTo(800 / 60.0, within(1e-9));
        assertThat(branches.sweep().duration()).isEqualTo(Duration.ofSeconds(20));
        assertThat(told.sweep().ratesPerS()).containsExactly(3.0, 2.0);
    }

    @Test
    void shouldParseRatesPerSecondOrPerMinute() {
        var converter = new BenchCommand.RateConverter();

        assertThat(converter.convert("33.34")).isEqualTo(33.34);
        assertThat(converter.convert("50/s")).isEqualTo(50.0);
        assertThat(converter.convert("90/min")).isEqualTo(1.5);
        assertThatThrownBy(() -> converter.convert("0")).isInstanceOf(CommandLine.TypeConversionException.class);
        assertThatThrownBy(() -> converter.convert("fast")).hasMessageContaining("'fast' is not a rate");
    }

    @Test
    void shouldRefuseFewerThanOneExecutor() {
        assertThatThrownBy(() -> Setting.combinations(Map.of(), List.of(0), List.of(), Map.of()))
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
