package io.millrace.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WebhookRatesTest {
    private final AtomicLong now = new AtomicLong(42);

    @Test
    void shouldTakeABurstOfASecondsCallsThenRefuseUntilTheBucketRefills() {
        // given
        var rates = new WebhookRates(2, now::get);

        // when: a burst of two, then a third at once
        rates.admit("company.team/hooked", "hook");
        rates.admit("company.team/hooked", "hook");

        // then
        assertThatThrownBy(() -> rates.admit("company.team/hooked", "hook"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(429);
                    assertThat(e.retryAfterSeconds()).isEqualTo(1);
                    assertThat(e.getMessage()).isEqualTo("Webhook trigger 'hook' of flow 'company.team/hooked' takes"
                            + " at most 2 calls a second (webhook-rate-per-key); retry in 1 s");
                });
        // another trigger has its own bucket
        rates.admit("company.team/hooked", "other");
        // half a second later one call is back, not two
        now.addAndGet(500_000_000L);
        rates.admit("company.team/hooked", "hook");
        assertThatThrownBy(() -> rates.admit("company.team/hooked", "hook")).isInstanceOf(ApiException.class);
    }

    @Test
    void shouldTakeEveryCallWhenTheRateIsZero() {
        // given
        var rates = new WebhookRates(0, now::get);

        // then: a thousand calls at once, none refused
        assertThatCode(() -> {
            for (int i = 0; i < 1000; i++) {
                rates.admit("company.team/hooked", "hook");
            }
        }).doesNotThrowAnyException();
    }
}
