package io.millrace.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The two assertion kinds expected.json writes as sentences. {@code ordering}: "a2 starts after a1 ends".
 * {@code relations}: "output.value of A[v1,'v 2'] CONTAINS 'get ' + output.value of B[v1]", where [..] is a
 * value path (absent: no enclosing loop). A sentence that does not parse is an unknown assertion.
 */
final class CorpusPhrases {
    private static final Pattern ORDERING = Pattern.compile("(\\S+) starts after (\\S+) ends");
    private static final Pattern LITERAL = Pattern.compile("'([^']*)'");
    private static final Pattern OUTPUT_VALUE = Pattern.compile("output\\.value of ([^\\[\\s]+)(?:\\[(.*)])?");
    private static final Pattern PATH_ITEM = Pattern.compile("'([^']*)'|([^,\\s']+)");

    private CorpusPhrases() {
    }

    record Ordering(String later, String earlier) {
    }

    /** A literal (taskId null) or the output {@code value} of the run of taskId at valuePath. */
    record Term(String literal, String taskId, List<String> valuePath) {
    }

    record Relation(List<Term> container, List<Term> contained) {
    }

    static Optional<Ordering> ordering(String sentence) {
        Matcher m = ORDERING.matcher(sentence.trim());
        return m.matches() ? Optional.of(new Ordering(m.group(1), m.group(2))) : Optional.empty();
    }

    static Optional<Relation> relation(String sentence) {
        String[] sides = sentence.split(" CONTAINS ", -1);
        if (sides.length != 2) {
            return Optional.empty();
        }
        Optional<List<Term>> container = terms(sides[0]);
        Optional<List<Term>> contained = terms(sides[1]);
        return container.isPresent() && contained.isPresent()
                ? Optional.of(new Relation(container.get(), contained.get()))
                : Optional.empty();
    }

    private static Optional<List<Term>> terms(String side) {
        var terms = new ArrayList<Term>();
        for (String part : side.split(" \\+ ")) {
            Matcher literal = LITERAL.matcher(part.trim());
            Matcher output = OUTPUT_VALUE.matcher(part.trim());
            if (literal.matches()) {
                terms.add(new Term(literal.group(1), null, List.of()));
            } else if (output.matches()) {
                terms.add(new Term(null, output.group(1), valuePath(output.group(2))));
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(terms);
    }

    private static List<String> valuePath(String items) {
        var path = new ArrayList<String>();
        if (items != null) {
            Matcher m = PATH_ITEM.matcher(items);
            while (m.find()) {
                path.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        return path;
    }
}
