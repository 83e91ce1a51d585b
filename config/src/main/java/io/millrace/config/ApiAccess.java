package io.millrace.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Who may call the gateway's API and how much one call may ask of it.
 *
 * @param authTokens the admin tokens the API accepts ({@code auth-tokens} and the lines of {@code auth-tokens-file})
 * @param accessFile the file of principals, their tokens' digests and their grants ({@code access-file}), read and
 *     watched by the gateway; null when none is set
 * @param maxRequestBytes the largest request body ({@code max-request-bytes})
 * @param maxRequestHeaderBytes the largest request line and headers together ({@code max-request-header-bytes})
 * @param maxWaitRequests the most requests waiting for an execution's end at once, {@code ?wait=true} and webhook
 *     waits together ({@code max-wait-requests})
 * @param maxExecutorBacklog the most commands the executor may have to read for a new execution to be admitted
 *     ({@code max-executor-backlog}); 0: no bound
 * @param maxExecutorDelay the longest a new execution may expect to wait for the executor to start it, its backlog over
 *     the fastest it started commands lately ({@code max-executor-delay}); zero: no bound
 * @param allowedHosts the {@code Host} names an open API answers besides this machine's loopback names
 *     ({@code api-allowed-hosts}), lower case, without port
 * @param corsAllowedOrigins the origins of browser pages allowed to call the API across origins
 *     ({@code cors-allowed-origins}), each {@code scheme://host[:port]}; none by default
 * @param maxWebhookWaitRequests the most webhook calls waiting for an execution's end at once, apart from
 *     {@code max-wait-requests} ({@code max-webhook-wait-requests})
 * @param webhookRatePerKey the calls a second one webhook trigger accepts, with a burst of as many
 *     ({@code webhook-rate-per-key}); 0: no bound
 */
public record ApiAccess(List<String> authTokens, Path accessFile, long maxRequestBytes, int maxRequestHeaderBytes,
        int maxWaitRequests, long maxExecutorBacklog, Duration maxExecutorDelay, List<String> allowedHosts,
        List<String> corsAllowedOrigins, int maxWebhookWaitRequests, int webhookRatePerKey) {
    /** The fewest characters a token may have: 16 random hexadecimal digits are 64 bits. */
    public static final int MIN_TOKEN_CHARS = 16;

    public ApiAccess {
        authTokens = List.copyOf(authTokens);
        allowedHosts = List.copyOf(allowedHosts);
        corsAllowedOrigins = List.copyOf(corsAllowedOrigins);
    }

    /** Whether the API asks for tokens: admin tokens or a file of principals is configured. */
    public boolean tokensConfigured() {
        return !authTokens.isEmpty() || accessFile != null;
    }

    /** Never prints the tokens: a configuration may be logged. */
    @Override
    public String toString() {
        return "ApiAccess[authTokens=" + authTokens.size() + " configured, accessFile=" + accessFile + ", maxRequestBytes=" + maxRequestBytes
                + ", maxRequestHeaderBytes=" + maxRequestHeaderBytes + ", maxWaitRequests=" + maxWaitRequests + ", maxExecutorBacklog=" + maxExecutorBacklog
                + ", maxExecutorDelay=" + maxExecutorDelay + ", allowedHosts=" + allowedHosts + ", corsAllowedOrigins="
                + corsAllowedOrigins + ", maxWebhookWaitRequests=" + maxWebhookWaitRequests + ", webhookRatePerKey="
                + webhookRatePerKey + "]";
    }
}
