package io.millrace.gateway;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * The calls a second each webhook trigger takes ({@code webhook-rate-per-key}): a token bucket per flow and trigger,
 * refilled at that rate and holding as many (a second's worth, the burst); a call finding it empty is refused with 429
 * and {@code Retry-After}, before it renders or starts anything. Keyed by the trigger, never by its key, which stays
 * out of every message and log. A caller with the key could otherwise start executions as fast as it sends.
 */
final class WebhookRates {
    /** Past this many buckets, the full ones (idle for a second or more) are dropped. */
    private static final int MAX_BUCKETS = 10_000;
    private static final long SECOND = 1_000_000_000L;

    private final int perSecond;
    private final LongSupplier nanos;
    private final ConcurrentMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    /**
     * @param perSecond the calls a second one trigger takes, and its burst; 0: no bound
     * @param nanos the clock, {@link System#nanoTime} but in tests
     */
    WebhookRates(int perSecond, LongSupplier nanos) {
        this.perSecond = perSecond;
        this.nanos = nanos;
    }

    /** @throws ApiException 429 with {@code Retry-After} when the trigger took its calls of the last second */
    void admit(String flowKey, String triggerId) {
        if (perSecond == 0) {
            return;
        }
        long now = nanos.getAsLong();
        if (buckets.size() > MAX_BUCKETS) {
            buckets.values().removeIf(bucket -> bucket.full(now));
        }
        long waitNanos = buckets.computeIfAbsent(flowKey + "/" + triggerId, k -> new Bucket(now)).take(now);
        if (waitNanos > 0) {
            int seconds = (int) Math.max(1, (waitNanos + SECOND - 1) / SECOND);
            throw ApiException.tooManyRequests("Webhook trigger '" + triggerId + "' of flow '" + flowKey + "' takes at"
                    + " most " + perSecond + " calls a second (webhook-rate-per-key); retry in " + seconds + " s",
                    seconds);
        }
    }

    private final class Bucket {
        private double tokens = perSecond;
        private long at;

        Bucket(long now) {
            at = now;
        }

        /** Takes a token: 0, or the nanoseconds until one is there (none taken). */
        synchronized long take(long now) {
            refill(now);
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return (long) Math.ceil((1 - tokens) * SECOND / perSecond);
        }

        synchronized boolean full(long now) {
            refill(now);
            return tokens >= perSecond;
        }

        private void refill(long now) {
            tokens = Math.min(perSecond, tokens + (now - at) * (double) perSecond / SECOND);
            at = now;
        }
    }
}
