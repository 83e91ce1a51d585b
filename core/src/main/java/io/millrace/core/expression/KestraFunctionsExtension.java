package io.millrace.core.expression;

import io.pebbletemplates.pebble.extension.AbstractExtension;
import io.pebbletemplates.pebble.extension.Filter;
import io.pebbletemplates.pebble.extension.Function;
import io.pebbletemplates.pebble.extension.Test;

import java.util.Map;

/** The filters, tests and functions Kestra adds to Pebble that flows use, under Kestra's names. */
final class KestraFunctionsExtension extends AbstractExtension {

    @Override
    public Map<String, Filter> getFilters() {
        ToJsonFilter toJson = new ToJsonFilter();
        return Map.of(
                "toJson", toJson,
                "json", toJson,
                "jq", new JqFilter());
    }

    @Override
    public Map<String, Test> getTests() {
        return Map.of("json", new IsJsonTest());
    }

    @Override
    public Map<String, Function> getFunctions() {
        return Map.of(
                "fromJson", new FromJsonFunction("fromJson"),
                "json", new FromJsonFunction("json"),
                CurrentEachOutputFunction.NAME, new CurrentEachOutputFunction(),
                "errorLogs", new ErrorLogsFunction(),
                SecretFunction.NAME, new SecretFunction());
    }
}
