package io.millrace.config;

import java.time.Duration;
import java.util.List;

/**
 * Who may call the gateway's API and how much one call may ask of it.
 *
 * @param authTokens the bearer tokens the API accepts ({@code auth-tokens} and the lines of {@code auth-tokens-file});
 *     empty means no token is configured
 * @param maxRequestBytes the largest request body ({@code max-request-bytes})
 * @param maxRequestHeaderBytes the largest request line and headers together ({@code max-request-header-bytes})
 * @param maxWaitRequests the most requests waiting for an execution's end at once, {@code ?wait=true} and webhook
 *     waits together ({@code max-wait-requests})
 * @param maxExecutorBacklog the most commands the executor may have to read for a new execution to be admitted
 *     ({@code max-executor-backlog}); 0: no bound
 * @param maxExecutorDelay the longest a new execution may expect to wait for the executor to start it, its backlog over
 *     the fastest it started commands lately ({@code max-executor-delay}); zero: no bound
 */
public record ApiAccess(List<String> authTokens, long maxRequestBytes, int maxRequestHeaderBytes, int maxWaitRequests,
        long maxExecutorBacklog, Duration maxExecutorDelay) {
    public ApiAccess {
        authTokens = List.copyOf(authTokens);
    }

    public boolean tokensConfigured() {
        return !authTokens.isEmpty();
    }

    /** Never prints the tokens: a configuration may be logged. */
    @Override
    public String toString() {
        return "ApiAccess[authTokens=" + authTokens.size() + " configured, maxRequestBytes=" + maxRequestBytes
                + ", maxRequestHeaderBytes=" + maxRequestHeaderBytes + ", maxWaitRequests=" + maxWaitRequests + ", maxExecutorBacklog=" + maxExecutorBacklog
                + ", maxExecutorDelay=" + maxExecutorDelay + "]";
    }
}
