package io.millrace.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class HostRulesTest {
    private static InetAddress address(String literal) {
        InetAddress address = HostRules.literal(literal);
        assertThat(address).as(literal).isNotNull();
        return address;
    }

    @Test
    void shouldMatchAddressesInsideTheirBlocksOnly() {
        // given
        HostRules rules = HostRules.parse("task-http-deny", " 10.0.0.0/8, 127.0.0.2 ,fd00:ec2::254, fe80::/10 ");

        // then
        assertThat(rules.matchesAddress(address("10.255.1.2"))).isTrue();
        assertThat(rules.matchesAddress(address("11.0.0.1"))).isFalse();
        assertThat(rules.matchesAddress(address("127.0.0.2"))).isTrue();
        assertThat(rules.matchesAddress(address("127.0.0.1"))).isFalse();
        assertThat(rules.matchesAddress(address("[fd00:ec2:0::254]"))).isTrue();
        assertThat(rules.matchesAddress(address("fd00:ec2::255"))).isFalse();
        assertThat(rules.matchesAddress(address("febf::1"))).isTrue();
        assertThat(rules.matchesAddress(address("fec0::1"))).isFalse();
        assertThat(rules).hasToString("10.0.0.0/8,127.0.0.2,fd00:ec2::254,fe80::/10");
    }

    @Test
    void shouldReadAnIpv4MappedIpv6AddressAsTheIpv4Address() {
        // given
        HostRules rules = HostRules.parse("task-http-deny", "169.254.0.0/16");

        // then: Java gives ::ffff:a.b.c.d as the IPv4 address it carries
        assertThat(rules.matchesAddress(address("::ffff:169.254.169.254"))).isTrue();
    }

    @Test
    void shouldMatchNamesExactlyAndPatternsBelowTheirDomain() {
        // given
        HostRules rules = HostRules.parse("task-http-allow", "api.example.com,*.internal.example.org");

        // then
        assertThat(rules.matchesName("API.Example.com.")).isTrue();
        assertThat(rules.matchesName("www.api.example.com")).isFalse();
        assertThat(rules.matchesName("a.b.internal.example.org")).isTrue();
        assertThat(rules.matchesName("internal.example.org")).isFalse();
        assertThat(rules.matchesName("evilinternal.example.org")).isFalse();
        assertThat(rules.matchesAddress(address("93.184.216.34"))).isFalse();
    }

    @Test
    void shouldTellAddressLiteralsFromNamesWithoutLookingThemUp() {
        // then
        assertThat(HostRules.literal("169.254.169.254")).isEqualTo(address("169.254.169.254"));
        assertThat(HostRules.literal("[::1]")).isNotNull();
        assertThat(HostRules.literal("localhost")).isNull();
        assertThat(HostRules.literal("999.1.1.1")).isNull();
        assertThat(HostRules.literal("cafe")).isNull();
    }

    @Test
    void shouldRefuseARuleThatIsNoneOfTheFormsNamingTheSetting() {
        // then
        for (String bad : new String[] {"10.0.0.0/33", "999.1.1.1", "*", "http://x", "a b", "fe80::/129", "10.0.0.0/x"}) {
            assertThatThrownBy(() -> HostRules.parse("task-http-deny", bad)).as(bad)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("Expected task-http-deny to be CIDR blocks")
                    .hasMessageContaining("'" + bad + "' is none");
        }
        assertThat(HostRules.parse("task-http-deny", " , ").isEmpty()).isTrue();
    }
}
