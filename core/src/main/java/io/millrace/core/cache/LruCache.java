package io.millrace.core.cache;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A bounded, least-recently-used cache, safe to share between threads. Values are computed outside the lock: two
 * threads may compute the same value once each, which is harmless, and a slow computation (parsing a flow,
 * compiling a template) never blocks other lookups. Null values are not cached.
 */
public final class LruCache<K, V> {
    private final Map<K, V> entries;

    public LruCache(int maxEntries) {
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > maxEntries;
            }
        };
    }

    /** The cached value, or {@code compute}'s (cached unless null). */
    public V computeIfAbsent(K key, Function<? super K, ? extends V> compute) {
        synchronized (entries) {
            V cached = entries.get(key);
            if (cached != null) {
                return cached;
            }
        }
        V computed = compute.apply(key);
        if (computed == null) {
            return null;
        }
        synchronized (entries) {
            V raced = entries.putIfAbsent(key, computed);
            return raced != null ? raced : computed;
        }
    }

    /** The cached value, or null. */
    public V get(K key) {
        synchronized (entries) {
            return entries.get(key);
        }
    }

    public void put(K key, V value) {
        synchronized (entries) {
            entries.put(key, value);
        }
    }

    public void remove(K key) {
        synchronized (entries) {
            entries.remove(key);
        }
    }

    public void clear() {
        synchronized (entries) {
            entries.clear();
        }
    }

    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
