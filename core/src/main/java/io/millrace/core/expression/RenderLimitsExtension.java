package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.AbstractExtension;
import io.pebbletemplates.pebble.extension.Function;

import java.util.Map;

/** Replaces Pebble's {@code range} (extensions registered after the core one win) with {@link BoundedRangeFunction}. */
final class RenderLimitsExtension extends AbstractExtension {

    @Override
    public Map<String, Function> getFunctions() {
        return Map.of(BoundedRangeFunction.NAME, new BoundedRangeFunction());
    }
}
