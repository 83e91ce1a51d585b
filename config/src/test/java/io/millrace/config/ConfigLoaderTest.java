package io.millrace.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.expression.RenderLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    @Test
    void shouldLayerDefaultsFileEnvironmentAndCommandLine() throws Exception {
        // given: each source overrides the one before it for one key
        Path file = Files.writeString(dir.resolve("millrace.yaml"), """
                partitions: 6
                poll-ms: 7
                lease: PT45S
                kafka:
                  producer.linger.ms: 3
                """);
        Map<String, String> env = Map.of("MILLRACE_POLL_MS", "8", "MILLRACE_WORKER_GROUP", "gpu",
                "MILLRACE_KAFKA_PROPERTIES", "consumer.fetch.max.wait.ms=50, num.standby.replicas=1");

        // when
        MillraceConfig config = ConfigLoader.load(env, Map.of("worker-group", "cpu"), file);

        // then
        assertThat(config.commitIntervalMs()).isEqualTo(100);
        assertThat(config.streamThreads()).isEqualTo(2);
        assertThat(config.eagerCommitMaxPercent()).isEqualTo(50);
        assertThat(config.partitions()).isEqualTo(6);
        assertThat(config.lease()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.pollMs()).isEqualTo(8);
        assertThat(config.workerGroup()).isEqualTo("cpu");
        assertThat(config.kafka()).containsExactlyInAnyOrderEntriesOf(Map.of("producer.linger.ms", "3",
                "consumer.fetch.max.wait.ms", "50", "num.standby.replicas", "1"));
    }

    @Test
    void shouldReadAKafkaPropertyFromItsOwnVariable() {
        // given: a secret as Kubernetes hands it over, in the environment rather than the arguments
        Map<String, String> env = Map.of("MILLRACE_KAFKA_SASL_JAAS_CONFIG", "PlainLoginModule required password=\"p,=q\";",
                "MILLRACE_KAFKA_PRODUCER_LINGER_MS", "4", "MILLRACE_KAFKA_PROPERTIES", "producer.linger.ms=2");

        // when
        MillraceConfig fromEnvironment = ConfigLoader.load(env, Map.of(), null);
        MillraceConfig overridden = ConfigLoader.load(env, Map.of("kafka.sasl.jaas.config", "from the command line"), null);

        // then: commas and equals signs survive, unlike in MILLRACE_KAFKA_PROPERTIES's list, which a property's own
        // variable overrides
        assertThat(fromEnvironment.kafka()).containsEntry("sasl.jaas.config", "PlainLoginModule required password=\"p,=q\";")
                .containsEntry("producer.linger.ms", "4");
        assertThat(overridden.kafka()).containsEntry("sasl.jaas.config", "from the command line");
    }

    @Test
    void shouldIgnoreTheVariablesThatAreNotSettings() {
        // when
        MillraceConfig config = ConfigLoader.load(Map.of("MILLRACE_CONFIG", "x.yaml", "MILLRACE_JAVA_OPTS", "-Xmx1g",
                "MILLRACE_JAR", "/opt/millrace/lib/millrace.jar", "MILLRACE_KAFKA_PORT", "19092", "MILLRACE_CONFORMANCE_DIR", "/somewhere", "PATH", "/bin"), Map.of(), null);

        // then
        assertThat(config).isEqualTo(MillraceConfig.defaults());
    }

    @Test
    void shouldNameAnUnknownSettingAndWhereItCameFrom() {
        assertThatThrownBy(() -> ConfigLoader.load(Map.of("MILLRACE_PARTITONS", "3"), Map.of(), null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Unknown setting 'partitons' (from MILLRACE_PARTITONS)");
    }

    @Test
    void shouldServeManagementOnItsOwnPortUnlessToldOtherwise() {
        assertThat(ConfigLoader.load(Map.of(), Map.of(), null).managementPort()).isEqualTo(8081);
        assertThat(ConfigLoader.load(Map.of("MILLRACE_MANAGEMENT_PORT", "0"), Map.of(), null).managementPort()).isZero();
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("management-port", "-1"), null))
                .hasMessage("Expected management-port to be a port number from 0 to 65535, but got '-1' (from --management-port)");
    }

    @Test
    void shouldNameABadValueWhatWasExpectedAndItsSource() {
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("port", "70000"), null))
                .hasMessage("Expected port to be a port number from 0 to 65535, but got '70000' (from --port)");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("partitions", "0"), null))
                .hasMessageContaining("Expected partitions to be a positive whole number, but got '0'");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of("MILLRACE_POLL_MS", "soon"), Map.of(), null))
                .hasMessageContaining("Expected poll-ms to be a whole number of 0 or more, but got 'soon' (from MILLRACE_POLL_MS)");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("eager-commit-max-percent", "101"), null))
                .hasMessageContaining("Expected eager-commit-max-percent to be a percentage from 0 to 100, but got '101'");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("lease", "PT0S"), null))
                .hasMessageContaining("Expected lease to be a positive ISO-8601 duration such as PT30S, but got 'PT0S'");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("processing-guarantee", "exactly_once"), null))
                .hasMessageContaining("Expected processing-guarantee to be exactly_once_v2 or at_least_once");
    }

    @Test
    void shouldRefuseMalformedKafkaPropertiesList() {
        assertThatThrownBy(() -> ConfigLoader.load(Map.of("MILLRACE_KAFKA_PROPERTIES", "linger.ms"), Map.of(), null))
                .hasMessageContaining("found 'linger.ms'");
    }

    @Test
    void shouldReadTokensFromTheListAndTheFileWithoutCommentsOrBlankLines() throws Exception {
        // given
        Path file = Files.writeString(dir.resolve("tokens"), """
                # the operators' token
                s3cret-ops-0123456789

                  s3cret-ci-0123456789 \t
                """);

        // when
        MillraceConfig config = ConfigLoader.load(Map.of("MILLRACE_AUTH_TOKENS", "a1-0123456789abcdef, b2-0123456789abcdef ,,"),
                Map.of("auth-tokens-file", file.toString()), null);

        // then
        assertThat(config.api().authTokens()).containsExactly("a1-0123456789abcdef", "b2-0123456789abcdef",
                "s3cret-ops-0123456789", "s3cret-ci-0123456789");
        assertThat(config.api().toString()).doesNotContain("s3cret").contains("4 configured");
    }

    @Test
    void shouldBoundExpressionsByDefaultAndTakeTheExpressionSettings() {
        // when
        MillraceConfig defaults = MillraceConfig.defaults();
        MillraceConfig set = ConfigLoader.load(Map.of("MILLRACE_EXPRESSION_MAX_STEPS", "5000"),
                Map.of("expression-max-time", "PT0.25S", "expression-max-string-chars", "1000",
                        "expression-max-collection-size", "10", "expression-max-rendered-chars", "2000",
                        "expression-max-jq-results", "3"), null);

        // then
        assertThat(defaults.expressionLimits()).isEqualTo(RenderLimits.DEFAULTS);
        assertThat(set.expressionLimits())
                .isEqualTo(new RenderLimits(5_000, Duration.ofMillis(250), 1_000, 10, 2_000, 3));
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("expression-max-steps", "0"), null))
                .hasMessageContaining("Expected expression-max-steps to be a positive whole number, but got '0'");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("expression-max-time", "1s"), null))
                .hasMessageContaining("Expected expression-max-time to be a positive ISO-8601 duration such as PT30S");
    }

    @Test
    void shouldHaveNoTokensAndBoundedRequestsByDefault() {
        // when
        ApiAccess api = MillraceConfig.defaults().api();

        // then
        assertThat(api.tokensConfigured()).isFalse();
        assertThat(api.maxRequestBytes()).isEqualTo(1024 * 1024);
        assertThat(api.maxRequestHeaderBytes()).isEqualTo(8192);
        assertThat(api.maxWaitRequests()).isEqualTo(1000);
        assertThat(api.maxWebhookWaitRequests()).isEqualTo(100);
        assertThat(api.webhookRatePerKey()).isEqualTo(10);
        assertThat(api.allowedHosts()).isEmpty();
        assertThat(api.corsAllowedOrigins()).isEmpty();
        assertThat(api.maxExecutorBacklog()).isEqualTo(2000);
        assertThat(api.maxExecutorDelay()).as("off until its rate is sure").isZero();
        assertThat(MillraceConfig.defaults().triggerExecutorDelay()).isZero();
    }

    @Test
    void shouldReadTheApisHostsOriginsAndWebhookBoundsAndRefuseAWildcardOrigin() {
        // when
        ApiAccess api = ConfigLoader.load(
                Map.of("MILLRACE_CORS_ALLOWED_ORIGINS", "https://UI.example.com, http://localhost:3000"),
                Map.of("api-allowed-hosts", "Millrace.local,[::2]", "max-webhook-wait-requests", "5",
                        "webhook-rate-per-key", "0"), null).api();

        // then
        assertThat(api.corsAllowedOrigins()).containsExactly("https://ui.example.com", "http://localhost:3000");
        assertThat(api.allowedHosts()).containsExactly("millrace.local", "[::2]");
        assertThat(api.maxWebhookWaitRequests()).isEqualTo(5);
        assertThat(api.webhookRatePerKey()).isZero();
        for (String origin : List.of("*", "https://ui.example.com/app", "ui.example.com", "null")) {
            assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("cors-allowed-origins", origin), null))
                    .as(origin).isInstanceOf(ConfigException.class).hasMessageContaining("cors-allowed-origins");
        }
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("api-allowed-hosts", "host:8080"), null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("api-allowed-hosts");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("webhook-rate-per-key", "-1"), null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("webhook-rate-per-key");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("max-webhook-wait-requests", "0"), null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("max-webhook-wait-requests");
    }

    @Test
    void shouldReadTheDelayAStartMayExpectAndAllowZeroButNotLess() {
        // when
        Duration set = ConfigLoader.load(Map.of("MILLRACE_MAX_EXECUTOR_DELAY", "PT0.5S"), Map.of(), null).api()
                .maxExecutorDelay();

        // then
        assertThat(set).isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("max-executor-delay", "-PT1S"), null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("max-executor-delay");
    }

    @Test
    void shouldReadTheExecutorBacklogAStartMayFindAndAllowZero() {
        // when
        long set = ConfigLoader.load(Map.of("MILLRACE_MAX_EXECUTOR_BACKLOG", "0"), Map.of(), null).api().maxExecutorBacklog();

        // then
        assertThat(set).isZero();
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("max-executor-backlog", "-1"), null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("max-executor-backlog");
    }

    @Test
    void shouldBoundWorkerTasksByDefaultAndReadTheirLimits() {
        // when
        WorkerLimits defaults = MillraceConfig.defaults().workerLimits();
        WorkerLimits set = ConfigLoader.load(Map.of("MILLRACE_TASK_MAX_DURATION", "PT10M"),
                Map.of("jsonata-max-duration", "PT5S", "jsonata-max-depth", "200", "worker-max-abandoned-tasks", "0"), null)
                .workerLimits();

        // then
        assertThat(defaults).isEqualTo(new WorkerLimits(Duration.ofHours(1), Duration.ofMinutes(1), 5000, 4));
        assertThat(set).isEqualTo(new WorkerLimits(Duration.ofMinutes(10), Duration.ofSeconds(5), 200, 0));
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("task-max-duration", "1h"), null))
                .hasMessage("Expected task-max-duration to be a positive ISO-8601 duration such as PT30S, but got '1h'"
                        + " (from --task-max-duration)");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("jsonata-max-depth", "0"), null))
                .hasMessageContaining("Expected jsonata-max-depth to be a positive whole number, but got '0'");
    }

    @Test
    void shouldAddNothingToWhatTasksMayReachByDefaultAndReadTheReachSettings() {
        // when
        TaskReach defaults = MillraceConfig.defaults().taskReach();
        TaskReach set = ConfigLoader.load(Map.of("MILLRACE_TASK_HTTP_ALLOW", "127.0.0.1/32,*.svc.cluster.local"),
                Map.of("task-http-deny", "127.0.0.2/32", "task-kafka-allow-engine-cluster", "TRUE",
                        "task-kafka-allow-jaas-config", "true"), null).taskReach();

        // then
        assertThat(defaults.httpDeny().isEmpty()).isTrue();
        assertThat(defaults.httpAllow().isEmpty()).isTrue();
        assertThat(defaults.kafkaAllowEngineCluster()).isFalse();
        assertThat(defaults.inStandalone().kafkaAllowEngineCluster()).as("standalone, not set").isTrue();
        assertThat(ConfigLoader.load(Map.of(), Map.of("task-kafka-allow-engine-cluster", "false"), null).taskReach()
                .inStandalone().kafkaAllowEngineCluster()).as("standalone, set to false").isFalse();
        assertThat(defaults.kafkaAllowAnyLoginModule()).isFalse();
        assertThat(set.httpDeny().matchesAddress(HostRules.literal("127.0.0.2"))).isTrue();
        assertThat(set.httpAllow().matchesName("kafka.default.svc.cluster.local")).isTrue();
        assertThat(set.kafkaAllowEngineCluster()).isTrue();
        assertThat(set.kafkaAllowAnyLoginModule()).isTrue();
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("task-http-allow", "10.0.0.0/40"), null))
                .hasMessageContaining("Expected task-http-allow to be CIDR blocks")
                .hasMessageEndingWith("'10.0.0.0/40' is none (from --task-http-allow)");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("task-kafka-allow-engine-cluster", "yes"), null))
                .hasMessage("Expected task-kafka-allow-engine-cluster to be true or false, but got 'yes'"
                        + " (from --task-kafka-allow-engine-cluster)");
    }

    @Test
    void shouldReadNoSecretsDirByDefaultAndTheFolderSet() {
        // when
        MillraceConfig byDefault = MillraceConfig.defaults();
        MillraceConfig set = ConfigLoader.load(Map.of("MILLRACE_SECRETS_DIR", " /etc/millrace/secrets "), Map.of(), null);

        // then
        assertThat(byDefault.secretsDir()).isEmpty();
        assertThat(set.secretsDir()).contains(Path.of("/etc/millrace/secrets"));
    }

    @Test
    void shouldBoundRunningExecutionsByDefaultAndLetZeroTurnTheBoundOff() {
        // when
        int byDefault = MillraceConfig.defaults().executorLimits().maxRunningExecutions();
        int off = ConfigLoader.load(Map.of("MILLRACE_MAX_RUNNING_EXECUTIONS", "0"), Map.of(), null)
                .executorLimits().maxRunningExecutions();

        // then
        assertThat(byDefault).isEqualTo(1000);
        assertThat(off).isZero();
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("max-running-executions", "-1"), null))
                .hasMessageContaining("Expected max-running-executions to be a whole number of 0 or more, but got '-1'");
    }

    @Test
    void shouldGiveTheExecutorsRendersATimeBudgetOfTheirOwn() {
        // when
        Duration byDefault = MillraceConfig.defaults().executorLimits().expressionMaxTime();
        Duration set = ConfigLoader.load(Map.of(), Map.of("executor-expression-max-time", "PT0.05S"), null)
                .executorLimits().expressionMaxTime();

        // then: tighter than every other render's, since the executor's stream thread waits on it
        assertThat(byDefault).isEqualTo(Duration.ofMillis(20))
                .isLessThan(MillraceConfig.defaults().expressionLimits().maxTime());
        assertThat(set).isEqualTo(Duration.ofMillis(50));
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("executor-expression-max-time", "20ms"), null))
                .hasMessageContaining("Expected executor-expression-max-time to be a positive ISO-8601 duration");
    }

    @Test
    void shouldStopOnAMissingTokensFileOrABadToken() {
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("auth-tokens-file", dir.resolve("none").toString()), null))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Unable to read auth-tokens-file " + dir.resolve("none") + " (from --auth-tokens-file): no such file");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("auth-tokens", "not secret"), null))
                .hasMessageContaining("Expected each token in auth-tokens (from --auth-tokens) to be printable ASCII")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("auth-tokens", "short-s3cret"), null))
                .hasMessage("Expected each token in auth-tokens (from --auth-tokens) to have at least 16 characters"
                        + " (e.g. openssl rand -hex 32), but one has 12");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("access-file", dir.resolve("none").toString()), null))
                .hasMessage("Unable to read access-file " + dir.resolve("none") + " (from --access-file): no such file");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("min-insync-replicas", "2"), null))
                .hasMessage("Expected min-insync-replicas to be 0 (the brokers' default) or at most replication-factor"
                        + " (1): a topic with fewer replicas than it needs in sync takes no writes, but got '2'"
                        + " (from --min-insync-replicas)");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("max-request-header-bytes", "100"), null))
                .hasMessageContaining("Expected max-request-header-bytes to be a whole number of 1024 or more");
    }

    @Test
    void shouldKeepTheStateUnderTheDataFolderUnlessAStateFolderIsSet() {
        // given: nothing set, a data folder set, a state folder set, and an empty state folder
        Path data = dir.resolve("install-a");

        // when
        MillraceConfig defaults = ConfigLoader.load(Map.of(), Map.of(), null);
        MillraceConfig underData = ConfigLoader.load(Map.of("MILLRACE_DATA_DIR", data.toString()), Map.of(), null);
        MillraceConfig set = ConfigLoader.load(Map.of("MILLRACE_DATA_DIR", data.toString()),
                Map.of("state-dir", dir.resolve("elsewhere").toString()), null);
        MillraceConfig empty = ConfigLoader.load(Map.of("MILLRACE_STATE_DIR", " "), Map.of("data-dir", data.toString()), null);

        // then: never a folder every install on the machine would share
        assertThat(defaults.stateDir()).isEqualTo(Path.of("data", "state"));
        assertThat(underData.stateDir()).isEqualTo(data.resolve("state"));
        assertThat(set.stateDir()).isEqualTo(dir.resolve("elsewhere"));
        assertThat(empty.stateDir()).isEqualTo(data.resolve("state"));
        assertThat(defaults.stateDir().toString()).doesNotContain(System.getProperty("java.io.tmpdir"));
    }

    @Test
    void shouldReadEncryptionKeyAndNeverShowABadOne() {
        // given
        String key = java.util.Base64.getEncoder().encodeToString(new byte[32]);
        String shortKey = java.util.Base64.getEncoder().encodeToString("sixteen-byte-key".getBytes());

        // when
        MillraceConfig set = ConfigLoader.load(Map.of("MILLRACE_ENCRYPTION_KEY", key), Map.of(), null);

        // then
        assertThat(MillraceConfig.defaults().secrets().inputCipher()).isEmpty();
        assertThat(set.secrets().inputCipher()).isPresent();
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("encryption-key", shortKey), null))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Expected encryption-key to be 32 bytes encoded in base64 (openssl rand -base64 32), but it"
                        + " decodes to 16 bytes (from --encryption-key)");
        assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of("encryption-key", "not base64 %!"), null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("it is not valid base64 (from --encryption-key)")
                .hasMessageNotContaining("not base64 %!");
    }

    @Test
    void shouldDropCredentialHeadersOfWebhooksByDefault() {
        // when
        var byDefault = MillraceConfig.defaults().secrets().webhookDropHeaders();
        var set = ConfigLoader.load(Map.of(), Map.of("webhook-drop-headers", " X-Api-Key, ,Cookie"), null)
                .secrets().webhookDropHeaders();

        // then
        assertThat(byDefault).containsExactlyInAnyOrder("authorization", "cookie", "proxy-authorization");
        assertThat(set).containsExactlyInAnyOrder("x-api-key", "cookie");
    }
}
