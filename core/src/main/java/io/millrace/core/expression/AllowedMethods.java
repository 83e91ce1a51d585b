package io.millrace.core.expression;

import io.pebbletemplates.pebble.attributes.methodaccess.MethodAccessValidator;
import io.pebbletemplates.pebble.node.ForNode;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * Which Java methods a template may reach: only the getters behind {@code entry.key} and {@code entry.value} (a
 * {@code for} over a map iterates its entries) and behind {@code loop.index}, {@code loop.first}... Pebble resolves
 * an attribute of a value that is not a map, list or array (and any {@code value.name(...)} call) by calling a public
 * Java method of the value's class; a template could then call {@code "a".repeat(1000000000)},
 * {@code s.matches("(a+)+$")} or {@code x.getClass()}, which no limit sees. Kestra's expressions need no method: the
 * values a flow renders are maps, lists, strings, numbers, booleans and dates, read with attributes, filters,
 * functions and tests (the Kestra conformance corpus calls none). A refused call fails the render.
 */
final class AllowedMethods implements MethodAccessValidator {

    private static final Map<Class<?>, Set<String>> ALLOWED = Map.of(
            Map.Entry.class, Set.of("getKey", "getValue"),
            ForNode.LoopVariables.class, Set.of("isFirst", "isLast", "getLength", "getIndex", "getRevindex"));

    @Override
    public boolean isMethodAccessAllowed(Object object, Method method) {
        Set<String> names = ALLOWED.get(method.getDeclaringClass());
        return names != null && names.contains(method.getName()) && method.getParameterCount() == 0;
    }
}
