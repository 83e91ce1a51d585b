package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.millrace.broker.EmbeddedKafkaBroker;
import io.millrace.config.ConfigLoader;
import io.millrace.config.MillraceConfig;
import io.millrace.serdes.CommandBacklog;
import io.millrace.serdes.Json;
import io.millrace.serdes.StartedOffsets;
import io.millrace.serdes.TopicAdmin;
import io.millrace.serdes.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission on the real broker: no executor runs, so every start's create stays unread on the commands topic until the
 * test commits the executor group's offsets past them, as an executor that caught up would. With
 * {@code max-executor-backlog} at 3, starts are refused once more than 3 wait, and admitted again once they are read.
 */
class GatewayAdmissionTest {
    private static final String NAMESPACE = "company.team";
    private static final String FLOW = """
            id: admitted
            namespace: company.team
            triggers:
              - {id: hook, type: io.kestra.plugin.core.trigger.Webhook, key: hook-key-0123456789}
            tasks:
              - {id: say, type: log, message: hello}
            """;

    @TempDir
    Path stateDir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldRefuseStartsWith503WhileTheExecutorIsBehindAndAdmitThemOnceItReadsThem() throws Exception {
        // given: a gateway whose executor reads nothing, and a limit of 3 commands
        MillraceConfig config = config();
        try (Gateway gateway = Gateway.startStandalone(config, registry)) {
            assertThat(gateway.awaitReady(Duration.ofSeconds(30))).as("gateway ready").isTrue();
            String base = "http://127.0.0.1:" + gateway.port() + "/api/v1";
            assertThat(send("POST", base + "/flows", FLOW).statusCode()).isEqualTo(200);
            String start = base + "/executions/" + NAMESPACE + "/admitted";

            // when: starts come one after another, faster than the executor reads (never)
            int admitted = 0;
            HttpResponse<String> refused = null;
            for (int i = 0; i < 20 && refused == null; i++) {
                var answer = send("POST", start, "");
                if (answer.statusCode() == 503) {
                    refused = answer;
                } else {
                    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                    admitted++;
                }
            }

            // then: refused once more than 3 wait, with Retry-After and a message naming the setting
            assertThat(refused).as("a start refused within 20").isNotNull();
            assertThat(admitted).as("starts admitted before the first refusal").isBetween(1, 4);
            assertThat(refused.headers().firstValue("Retry-After")).contains("1");
            assertThat(refused.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
            assertThat(message(refused)).matches("The executor has \\d+ commands to read, more than"
                    + " max-executor-backlog \\(3\\); retry later");

            // and: once more than 3 are in the topic (a create acknowledged while a read runs counts twice until the
            // next read, so the first refusal may come with 3 admitted) and the lag has been read, with and without
            // waiting, and through a webhook, too
            for (int tries = 0; admitted <= 3; tries++) {
                assertThat(tries).as("tries for a fourth admitted start").isLessThan(40);
                if (send("POST", start, "").statusCode() == 200) {
                    admitted++;
                } else {
                    Thread.sleep(CommandBacklog.EVERY.toMillis());
                }
            }
            awaitLag(config, admitted);
            assertThat(send("POST", start, "").statusCode()).isEqualTo(503);
            assertThat(send("POST", start + "?wait=true", "").statusCode()).isEqualTo(503);
            assertThat(send("POST", base + "/executions/webhook/" + NAMESPACE + "/admitted/hook-key-0123456789", "{}")
                    .statusCode())
                    .isEqualTo(503);

            // and: reads and other calls are not refused
            assertThat(send("GET", base + "/flows/" + NAMESPACE + "/admitted", null).statusCode()).isEqualTo(200);
            assertThat(send("GET", base + "/executions/search", null).statusCode()).isEqualTo(200);
            assertThat(send("POST", base + "/executions/some-id/kill", "").statusCode()).isEqualTo(202);
            assertThat(send("POST", base + "/flows", FLOW).statusCode()).isEqualTo(200);
            assertThat(registry.get("millrace.gateway.starts.refused").tag("reason", "executor_backlog").counter().count())
                    .isGreaterThanOrEqualTo(4);
            assertThat(registry.get("millrace.gateway.executor.backlog").gauge().value()).isGreaterThan(3);

            // when: the executor catches up
            readAll(config);

            // then: starts are admitted again
            assertThat(eventually(200, () -> send("POST", start, "").statusCode())).isEqualTo(200);
            assertThat(send("POST", base + "/executions/webhook/" + NAMESPACE + "/admitted/hook-key-0123456789", "{}")
                    .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void shouldCountCreatesThatWaitForAPlaceToStartAsBacklog() throws Exception {
        // given: four starts, all read by the executor (below)
        MillraceConfig config = config();
        try (Gateway gateway = Gateway.startStandalone(config, registry);
                StartedOffsets started = StartedOffsets.published(config)) {
            assertThat(gateway.awaitReady(Duration.ofSeconds(30))).as("gateway ready").isTrue();
            String base = "http://127.0.0.1:" + gateway.port() + "/api/v1";
            assertThat(send("POST", base + "/flows", FLOW).statusCode()).isEqualTo(200);
            String start = base + "/executions/" + NAMESPACE + "/admitted";
            int admitted = 0;
            for (int tries = 0; admitted < 4; tries++) {
                assertThat(tries).as("tries for four admitted starts").isLessThan(40);
                if (send("POST", start, "").statusCode() == 200) {
                    admitted++;
                } else {
                    readAll(config); // a limit of 3 refuses a fourth until the executor has read the first
                    Thread.sleep(CommandBacklog.EVERY.multipliedBy(2).toMillis());
                }
            }

            // when: the executor read them, and says it started none (they wait for a place: max-running-executions)
            readAll(config);
            started.set(0, 0);
            started.set(1, 0);
            Thread.sleep(StartedOffsets.EVERY.plus(CommandBacklog.EVERY).multipliedBy(2).toMillis());

            // then: they count as backlog, and starts are refused
            assertThat(eventually(503, () -> send("POST", start, "").statusCode())).isEqualTo(503);

            // when: they start, and none waits any more
            started.set(0, StartedOffsets.NONE);
            started.set(1, StartedOffsets.NONE);

            // then
            assertThat(eventually(200, () -> send("POST", start, "").statusCode())).isEqualTo(200);
        }
    }

    @Test
    void shouldAdmitEveryStartWhenTheLimitIsZero() throws Exception {
        // given: no limit, and an executor that reads nothing
        MillraceConfig config = config("max-executor-backlog", "0");
        try (Gateway gateway = Gateway.startStandalone(config, registry)) {
            assertThat(gateway.awaitReady(Duration.ofSeconds(30))).as("gateway ready").isTrue();
            String base = "http://127.0.0.1:" + gateway.port() + "/api/v1";
            assertThat(send("POST", base + "/flows", FLOW).statusCode()).isEqualTo(200);

            // when / then
            for (int i = 0; i < 10; i++) {
                assertThat(send("POST", base + "/executions/" + NAMESPACE + "/admitted", "").statusCode()).isEqualTo(200);
            }
            assertThat(registry.get("millrace.gateway.starts.refused").counter().count()).isZero();
        }
    }

    private MillraceConfig config(String... more) {
        var settings = new java.util.HashMap<>(Map.of(
                "bootstrap-servers", EmbeddedKafkaBroker.shared().bootstrapServers(),
                "topic-prefix", "admit" + UUID.randomUUID().toString().substring(0, 8) + ".",
                "partitions", "2",
                "port", "0",
                "state-dir", stateDir.toString(),
                "max-executor-backlog", "3"));
        for (int i = 0; i < more.length; i += 2) {
            settings.put(more[i], more[i + 1]);
        }
        return ConfigLoader.load(Map.of(), settings, null);
    }

    private HttpResponse<String> send(String method, String uri, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        request.header("Content-Type", uri.endsWith("/flows") ? "application/x-yaml" : "application/json");
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String message(HttpResponse<String> answer) {
        return String.valueOf(Json.readMap(answer.body()).get("message"));
    }

    /** Waits until the executor's lag on the commands topic is at least {@code commands}, plus a few reads. */
    private static void awaitLag(MillraceConfig config, int commands) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        try (Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
            while (ends(admin, config).values().stream().mapToLong(Long::longValue).sum() < commands) {
                assertThat(System.nanoTime()).as("the creates in the topic").isLessThan(until);
                Thread.sleep(50);
            }
        }
        Thread.sleep(CommandBacklog.EVERY.multipliedBy(4).toMillis());
    }

    /** Commits the executor group's offsets at the end of the commands topic, as an executor that read it all. */
    private static void readAll(MillraceConfig config) throws Exception {
        try (Admin admin = Admin.create(TopicAdmin.adminProperties(config))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = ends(admin, config).entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue())));
            admin.alterConsumerGroupOffsets(Topics.executorApplicationId(config), offsets).all().get();
        }
    }

    private static Map<TopicPartition, Long> ends(Admin admin, MillraceConfig config) throws Exception {
        String topic = Topics.of(config).commands().name();
        List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        return admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                .all().get().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** The first {@code expected} status within 10 s, or the last status. */
    private static int eventually(int expected, ThrowingSupplier<Integer> status) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int last;
        do {
            last = status.get();
            if (last == expected) {
                return last;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < until);
        return last;
    }

    @FunctionalInterface
    private interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}
