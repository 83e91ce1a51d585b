package io.millrace.gateway;

import java.security.SecureRandom;
import java.util.Base64;

/** Execution ids: 128 random bits as 22 URL-safe characters, like Kestra's ids. */
final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private Ids() {
    }

    static String newExecutionId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return ENCODER.encodeToString(bytes);
    }
}
