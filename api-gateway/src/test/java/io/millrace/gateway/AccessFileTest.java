package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AccessFileTest {
    private static final String DIGEST_A = "a".repeat(64);
    private static final String DIGEST_B = "B".repeat(64);

    @Test
    void shouldReadEachPrincipalsTokensAndGrants() throws Exception {
        // when
        Map<String, Principal> principals = AccessFile.parse("""
                principals:
                  - name: team-a
                    tokens: [%s, %s]
                    grants:
                      company.team-a: editor
                      "*": viewer
                """.formatted(DIGEST_A, DIGEST_B));

        // then: a digest in either case is the same token
        assertThat(principals).containsOnlyKeys(DIGEST_A, DIGEST_B.toLowerCase());
        Principal teamA = principals.get(DIGEST_A);
        assertThat(teamA.name()).isEqualTo("team-a");
        assertThat(teamA.may(Role.EDITOR, "company.team-a")).isTrue();
        assertThat(teamA.may(Role.RUNNER, "company.team-a.etl")).isTrue();
        assertThat(teamA.may(Role.RUNNER, "company.team-ab")).isFalse();
        assertThat(teamA.may(Role.VIEWER, "company.team-b")).isTrue();
        assertThat(teamA.may(Role.RUNNER, "company.team-b")).isFalse();
        assertThat(teamA.mayEverywhere(Role.VIEWER)).isTrue();
        assertThat(teamA.mayEverywhere(Role.ADMIN)).isFalse();
    }

    @Test
    void shouldRefuseAFileThatBreaksARuleNamingThePrincipalAndNeverQuotingADigest() {
        assertRefused("principals: {}", "Expected a list 'principals' at the top");
        assertRefused("principals: [", "Expected YAML, but it does not parse at line");
        assertRefused(one("", "[" + DIGEST_A + "]", "{ns: viewer}"), "Expected each principal to have a name");
        assertRefused(one("p", "[s3cret-token-pasted-by-mistake]", "{ns: viewer}"),
                "Principal 'p': expected each token to be a SHA-256 digest");
        assertRefused(one("p", "[]", "{ns: viewer}"), "Principal 'p': expected 'tokens'");
        assertRefused(one("p", "[" + DIGEST_A + "]", "{ns: owner}"),
                "Principal 'p': expected viewer, runner, editor or admin on 'ns', but got 'owner'");
        assertRefused(one("p", "[" + DIGEST_A + "]", "{}"), "Principal 'p': expected 'grants'");
        assertRefused(one("p", "[" + DIGEST_A + "]", "{'a b': viewer}"),
                "Principal 'p': expected a namespace or \"*\"");
        assertRefused(one("p", "[" + DIGEST_A + "]", "{ns: viewer}") + one("q", "[" + DIGEST_A + "]", "{ns: admin}")
                .replace("principals:\n", ""), "Principal 'q': one of its tokens is another principal's");
        assertRefused(one("p", "[" + DIGEST_A + "]", "{ns: viewer}") + one("p", "[" + DIGEST_B + "]", "{ns: admin}")
                .replace("principals:\n", ""), "Principal 'p' is named twice");
    }

    private static String one(String name, String tokens, String grants) {
        return "principals:\n  - name: '" + name + "'\n    tokens: " + tokens + "\n    grants: " + grants + "\n";
    }

    private static void assertRefused(String text, String message) {
        assertThatThrownBy(() -> AccessFile.parse(text))
                .isInstanceOf(AccessFile.InvalidAccessFile.class)
                .hasMessageContaining(message)
                .hasMessageNotContaining(DIGEST_A)
                .hasMessageNotContaining("s3cret");
    }
}
