package io.millrace.core.expression;

import io.pebbletemplates.pebble.cache.PebbleCache;
import io.pebbletemplates.pebble.template.PebbleTemplate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A bounded, least-recently-used cache of compiled templates. Pebble's default cache is an unbounded
 * ConcurrentHashMap (Caffeine is optional and not on our class path); flows are user input, so the set of
 * templates is unbounded too. Compilation runs outside the lock: two threads may compile the same template
 * once each, which is harmless, and a slow compile never blocks other renders.
 */
final class LruTemplateCache implements PebbleCache<Object, PebbleTemplate> {

    private final Map<Object, PebbleTemplate> entries;

    LruTemplateCache(int maxEntries) {
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Object, PebbleTemplate> eldest) {
                return size() > maxEntries;
            }
        };
    }

    @Override
    public PebbleTemplate computeIfAbsent(Object key, Function<? super Object, ? extends PebbleTemplate> compiler) {
        synchronized (entries) {
            PebbleTemplate cached = entries.get(key);
            if (cached != null) {
                return cached;
            }
        }
        PebbleTemplate compiled = compiler.apply(key);
        synchronized (entries) {
            PebbleTemplate raced = entries.putIfAbsent(key, compiled);
            return raced != null ? raced : compiled;
        }
    }

    @Override
    public void invalidateAll() {
        synchronized (entries) {
            entries.clear();
        }
    }

    int size() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
