package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.Extension;
import io.pebbletemplates.pebble.extension.ExtensionCustomizer;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.extension.core.AbsFilter;
import io.pebbletemplates.pebble.extension.core.DefaultFilter;
import io.pebbletemplates.pebble.extension.core.FirstFilter;
import io.pebbletemplates.pebble.extension.core.FormatFilter;
import io.pebbletemplates.pebble.extension.core.JoinFilter;
import io.pebbletemplates.pebble.extension.core.LastFilter;
import io.pebbletemplates.pebble.extension.core.LengthFilter;
import io.pebbletemplates.pebble.extension.core.RangeFunction;
import io.pebbletemplates.pebble.extension.core.ReplaceFilter;
import io.pebbletemplates.pebble.extension.core.SplitFilter;
import io.pebbletemplates.pebble.extension.escaper.EscapeFilter;
import io.pebbletemplates.pebble.operator.BinaryOperator;
import io.pebbletemplates.pebble.tokenParser.TokenParser;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * An extension whose every part spends the render's budget and builds bounded values: filters and functions become
 * {@link BoundedFilter}s and {@link BoundedFunction}s, Pebble's filters that can multiply a text or run a regular
 * expression ({@code split}, {@code replace}, {@code join}, {@code format}) and its {@code range} are replaced by
 * bounded versions, and its tags and operators by those of {@link BoundedTags} and {@link BoundedOperators}.
 * Pebble applies it to its own extensions (core, escaper, i18n) as an extension customizer, its documented way to
 * replace built-in parts; {@link Expressions} wraps ours in it.
 *
 * <p>{@code default} and {@code escape} are kept as they are: Pebble tells them apart by their class.
 */
final class BoundedExtension extends ExtensionCustomizer {

    private static final Map<Class<?>, Supplier<Filter>> BOUNDED_FILTERS = Map.of(
            SplitFilter.class, BoundedSplitFilter::new,
            ReplaceFilter.class, BoundedReplaceFilter::new,
            JoinFilter.class, BoundedJoinFilter::new,
            FormatFilter.class, BoundedFormatFilter::new);
    /** Pebble's filters that read a size or an end of their input, not all of it. */
    private static final Set<Class<?>> READ_AN_END = Set.of(LengthFilter.class, FirstFilter.class, LastFilter.class,
            AbsFilter.class);

    BoundedExtension(Extension extension) {
        super(extension);
    }

    @Override
    public Map<String, Filter> getFilters() {
        Map<String, Filter> filters = super.getFilters();
        if (filters == null) {
            return null;
        }
        Map<String, Filter> bounded = new HashMap<>();
        filters.forEach((name, filter) -> bounded.put(name, bounded(name, filter)));
        return bounded;
    }

    @Override
    public Map<String, Function> getFunctions() {
        Map<String, Function> functions = super.getFunctions();
        if (functions == null) {
            return null;
        }
        Map<String, Function> bounded = new HashMap<>();
        functions.forEach((name, function) -> bounded.put(name, new BoundedFunction(name,
                function instanceof RangeFunction ? new BoundedRangeFunction() : function)));
        return bounded;
    }

    @Override
    public List<TokenParser> getTokenParsers() {
        List<TokenParser> parsers = super.getTokenParsers();
        return parsers == null ? null : BoundedTags.of(parsers);
    }

    @Override
    public List<BinaryOperator> getBinaryOperators() {
        List<BinaryOperator> operators = super.getBinaryOperators();
        return operators == null ? null : BoundedOperators.of(operators);
    }

    private static Filter bounded(String name, Filter filter) {
        if (filter instanceof DefaultFilter || filter instanceof EscapeFilter) {
            return filter;
        }
        Supplier<Filter> replacement = BOUNDED_FILTERS.get(filter.getClass());
        return new BoundedFilter(name, replacement == null ? filter : replacement.get(),
                !READ_AN_END.contains(filter.getClass()));
    }
}
