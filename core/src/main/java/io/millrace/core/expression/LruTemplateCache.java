package io.millrace.core.expression;

import io.millrace.core.cache.LruCache;
import io.pebbletemplates.pebble.cache.PebbleCache;
import io.pebbletemplates.pebble.template.PebbleTemplate;
import java.util.function.Function;

/**
 * Pebble's template cache, bounded. Pebble's default cache is an unbounded ConcurrentHashMap (Caffeine is optional
 * and not on our class path); flows are user input, so the set of templates is unbounded too.
 */
final class LruTemplateCache implements PebbleCache<Object, PebbleTemplate> {

    private final LruCache<Object, PebbleTemplate> entries;

    LruTemplateCache(int maxEntries) {
        this.entries = new LruCache<>(maxEntries);
    }

    @Override
    public PebbleTemplate computeIfAbsent(Object key, Function<? super Object, ? extends PebbleTemplate> compiler) {
        return entries.computeIfAbsent(key, compiler);
    }

    @Override
    public void invalidateAll() {
        entries.clear();
    }

    int size() {
        return entries.size();
    }
}
