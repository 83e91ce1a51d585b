package io.millrace.core.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/** Small helpers for the immutable lists of the execution model. */
final class Lists {
    private Lists() {
    }

    static <T> List<T> append(List<T> list, T element) {
        var copy = new ArrayList<T>(list.size() + 1);
        copy.addAll(list);
        copy.add(element);
        return List.copyOf(copy);
    }

    /** A copy with the elements matching {@code which} replaced by {@code change} applied to them. */
    static <T> List<T> replace(List<T> list, Predicate<T> which, UnaryOperator<T> change) {
        // toUnmodifiableList, not toList: List.copyOf in the records' constructors takes it as is instead of copying
        return list.stream().map(e -> which.test(e) ? change.apply(e) : e).collect(Collectors.toUnmodifiableList());
    }
}
