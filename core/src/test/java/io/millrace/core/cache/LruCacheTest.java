package io.millrace.core.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LruCacheTest {
    private final List<String> computed = new ArrayList<>();
    private final LruCache<String, String> cache = new LruCache<>(2);

    private String get(String key) {
        return cache.computeIfAbsent(key, k -> {
            computed.add(k);
            return k.toUpperCase();
        });
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedEntry() {
        // given: a and b cached, then a used again
        get("a");
        get("b");
        get("a");

        // when: c pushes one out
        get("c");
        get("a");
        get("b");

        // then: b was evicted (least recently used), a was not
        assertThat(computed).containsExactly("a", "b", "c", "b");
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void shouldNotCacheNull() {
        // when
        String first = cache.computeIfAbsent("x", k -> null);
        String second = get("x");

        // then
        assertThat(first).isNull();
        assertThat(second).isEqualTo("X");
    }
}
