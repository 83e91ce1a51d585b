package io.millrace.gateway;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The bearer tokens the API accepts. Only their SHA-256 digests are kept, and a presented token is compared through
 * its digest with {@link MessageDigest#isEqual} against every configured one: the time taken depends neither on how
 * much of a token matched nor on its length, nor on which configured token it is.
 */
final class BearerTokens {
    private static final String SCHEME = "bearer ";

    private final List<byte[]> digests;

    BearerTokens(List<String> tokens) {
        this.digests = tokens.stream().map(BearerTokens::sha256).toList();
    }

    boolean isEmpty() {
        return digests.isEmpty();
    }

    /** Whether an {@code Authorization} header value is {@code Bearer <a configured token>}. */
    boolean accepts(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        byte[] presented = sha256(authorization.substring(SCHEME.length()).trim());
        boolean accepted = false;
        for (byte[] digest : digests) {
            accepted |= MessageDigest.isEqual(digest, presented);
        }
        return accepted;
    }

    /** Whether {@code presented} is {@code expected}, in time that tells nothing of where they differ. */
    static boolean sameSecret(String presented, String expected) {
        return presented != null && expected != null && MessageDigest.isEqual(sha256(presented), sha256(expected));
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }
}
