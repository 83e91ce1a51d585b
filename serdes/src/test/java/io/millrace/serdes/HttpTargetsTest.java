package io.millrace.serdes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.config.HostRules;
import io.millrace.config.TaskReach;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The rules alone: names resolve through a table, and nothing is ever connected to. */
class HttpTargetsTest {
    private static final Map<String, List<String>> DNS = Map.of(
            "evil.example", List.of("169.254.169.254"),
            "aws6.example", List.of("fd00:ec2::254"),
            "alibaba.example", List.of("100.100.100.200"),
            "nat64.example", List.of("64:ff9b::a9fe:a9fe"),
            "mixed.example", List.of("93.184.216.34", "169.254.169.254"),
            "public.example", List.of("93.184.216.34"),
            "localhost", List.of("127.0.0.1", "::1"),
            "kafka-0.kafka", List.of("10.1.2.3"));
    private static final HttpTargets.Resolver TABLE = host -> {
        List<String> addresses = DNS.get(host);
        if (addresses == null) {
            throw new UnknownHostException(host);
        }
        return addresses.stream().map(HostRules::literal).toArray(InetAddress[]::new);
    };

    private static HttpTargets targets(boolean standalone, String deny, String allow) {
        var reach = new TaskReach(HostRules.parse("task-http-deny", deny), HostRules.parse("task-http-allow", allow),
                false, false, true);
        return new HttpTargets(reach, standalone, List.of("kafka-0.kafka:9092"), TABLE);
    }

    private static String refusal(HttpTargets targets, String uri) {
        try {
            targets.check(URI.create(uri));
        } catch (HttpTargets.Refused e) {
            return e.getMessage();
        } catch (UnknownHostException e) {
            return "unknown host " + e.getMessage();
        }
        return null;
    }

    @Test
    void shouldRefuseMetadataAddressesAndNamesEvenInStandalone() {
        // given
        HttpTargets standalone = targets(true, "", "");

        // then
        assertThat(refusal(standalone, "http://evil.example/latest/meta-data/")).isEqualTo("the target evil.example"
                + " (169.254.169.254) is not allowed: it is a link-local or cloud metadata address; the setting"
                + " task-http-allow allows it (e.g. --set task-http-allow=169.254.169.254/32)");
        assertThat(refusal(standalone, "http://169.254.169.254/")).contains("link-local or cloud metadata address");
        assertThat(refusal(standalone, "http://aws6.example/")).contains("(fd00:ec2:0:0:0:0:0:254)", "metadata address");
        assertThat(refusal(standalone, "http://[fe80::1]/")).contains("metadata address");
        assertThat(refusal(standalone, "http://[fd20:ce::254]/")).contains("metadata address");
        assertThat(refusal(standalone, "http://[64:ff9b:1:a9fe:a9:fe00::]/")).contains("metadata address");
        assertThat(refusal(standalone, "http://alibaba.example/")).contains("metadata address");
        assertThat(refusal(standalone, "http://[::ffff:169.254.169.254]/")).contains("metadata address");
        assertThat(refusal(standalone, "http://nat64.example/")).contains("metadata address");
        assertThat(refusal(standalone, "http://mixed.example/")).contains("(169.254.169.254)", "metadata address");
        // a metadata name is refused even where it does not resolve (as here, off the cloud)
        assertThat(refusal(standalone, "http://Metadata.Google.Internal./computeMetadata/v1/")).isEqualTo("the target"
                + " Metadata.Google.Internal. is not allowed: it is a cloud metadata name; the setting"
                + " task-http-allow allows it (e.g. --set task-http-allow=metadata.google.internal)");
        assertThat(refusal(standalone, "https://public.example/")).isNull();
    }

    @Test
    void shouldRefuseThisMachineAndTheEnginesBrokersOutsideStandaloneOnly() {
        // given
        HttpTargets role = targets(false, "", "");
        HttpTargets standalone = targets(true, "", "");

        // then
        for (String uri : List.of("http://127.0.0.1:8080/", "http://localhost/", "http://127.9.9.9/", "http://0.0.0.0/",
                "http://[::1]:8081/", "http://[::]/")) {
            assertThat(refusal(role, uri)).as(uri).contains("it is this machine", "task-http-allow");
            assertThat(refusal(standalone, uri)).as(uri).isNull();
        }
        assertThat(refusal(role, "http://10.1.2.3:9092/")).isEqualTo("the target 10.1.2.3 is not allowed: it is a Kafka"
                + " broker of the engine (bootstrap-servers); the setting task-http-allow allows it"
                + " (e.g. --set task-http-allow=10.1.2.3/32)");
        assertThat(refusal(role, "http://10.1.2.3:8080/")).isNull();
        assertThat(refusal(standalone, "http://10.1.2.3:9092/")).isNull();
    }

    @Test
    void shouldReadTheEnginesBrokersAsKafkaDoesWithAProtocolAndLeadingZeros() {
        // given
        var reach = new TaskReach(HostRules.NONE, HostRules.NONE, false, false, true);
        var role = new HttpTargets(reach, false, List.of(" SASL_SSL://KAFKA-0.kafka.:09092", "PLAINTEXT://[::1]:9093"),
                TABLE);

        // then
        assertThat(refusal(role, "http://10.1.2.3:9092/")).contains("it is a Kafka broker of the engine");
        assertThat(refusal(role, "http://10.1.2.3:9093/")).isNull();
    }

    @Test
    void shouldRefuseWhatTheOperatorDeniesAndLetAllowWinOverEveryRule() {
        // given
        HttpTargets operator = targets(false, "10.0.0.0/8,*.corp.example", "10.9.0.0/16,169.254.169.254,localhost");

        // then
        assertThat(refusal(operator, "http://10.1.1.1/")).contains("the setting task-http-deny refuses it");
        assertThat(refusal(operator, "http://wiki.corp.example/")).isEqualTo("the target wiki.corp.example is not"
                + " allowed: the setting task-http-deny refuses it; the setting task-http-allow allows it"
                + " (e.g. --set task-http-allow=wiki.corp.example)");
        assertThat(refusal(operator, "http://10.9.1.1/")).isNull();
        assertThat(refusal(operator, "http://evil.example/")).isNull();
        assertThat(refusal(operator, "http://localhost:8080/")).isNull();
        assertThat(refusal(operator, "http://127.0.0.1:8080/")).contains("it is this machine");
        assertThat(refusal(operator, "http://nowhere.example/")).isEqualTo("unknown host nowhere.example");
    }

    @Test
    void shouldLookANameUpOnceAndAnswerTheAddressItChecked() throws Exception {
        // given: a name that answers a public address, then the metadata address (DNS rebinding)
        var lookups = new AtomicInteger();
        HttpTargets.Resolver rebinding = host -> new InetAddress[] {
                HostRules.literal(lookups.getAndIncrement() == 0 ? "93.184.216.34" : "169.254.169.254")};
        var targets = new HttpTargets(new TaskReach(HostRules.NONE, HostRules.NONE, false, false, true), true, List.of(),
                rebinding);

        // when
        HttpTargets.Target target = targets.check(URI.create("http://rebind.example/"));

        // then: what is connected to is the address checked, not a second answer
        assertThat(target.address()).isEqualTo(HostRules.literal("93.184.216.34"));
        assertThat(lookups).hasValue(1);
        assertThatThrownBy(() -> targets.check(URI.create("http://rebind.example/")))
                .isInstanceOf(HttpTargets.Refused.class).hasMessageContaining("(169.254.169.254)");
    }
}
