// The flow editor: CodeMirror (its WebJar, served under vendor/) with YAML highlighting, line numbers, and the API's
// problems marked in the margin at the line they are about.
import {h} from './dom.js';

/**
 * An editor in {@code host}, its wrapper given the id {@code id}; {@code changed()} is called on every change.
 * Answers {value(), setValue(text, silently), mark(problems), focusLine(line)}.
 */
export function yamlEditor(host, id, label, changed) {
  const cm = window.CodeMirror(host, {
    mode: 'yaml', lineNumbers: true, indentUnit: 2, tabSize: 2, indentWithTabs: false, screenReaderLabel: label,
    gutters: ['problems', 'CodeMirror-linenumbers'],
    extraKeys: {Tab: (editor) => editor.replaceSelection('  ')},
  });
  cm.getWrapperElement().id = id;
  let quiet = false;
  cm.on('changes', () => quiet || changed());
  let marked = [];
  return {
    value: () => cm.getValue(),
    /** Replaces the text; {@code silently}: without calling {@code changed} (a source as stored, already checked). */
    setValue(text, silently = false) {
      quiet = silently;
      try {
        cm.setValue(text);
      } finally {
        quiet = false;
      }
    },
    /** Marks each problem at its line (when one can be told); answers the line of each, 1-based, or null. */
    mark(problems) {
      marked.forEach((line) => cm.removeLineClass(line, 'background', 'problem-line'));
      cm.clearGutter('problems');
      marked = [];
      const text = cm.getValue();
      return problems.map((problem) => {
        const line = lineOf(problem, text);
        if (line === null) return null;
        const handle = cm.getLineHandle(Math.min(line, cm.lineCount()) - 1);
        cm.setGutterMarker(handle, 'problems', h('span', {class: 'problem-mark', title: problem}, '●'));
        cm.addLineClass(handle, 'background', 'problem-line');
        marked.push(handle);
        return line;
      });
    },
    focusLine(line) {
      cm.focus();
      cm.setCursor({line: line - 1, ch: 0});
    },
  };
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The line (1-based) a problem is about: the line it names (a YAML error), else the declaration of the task, input
 * or trigger it names ({@code id: x}), else the property it names, under that declaration when there is one.
 */
export function lineOf(problem, text) {
  const named = /\bline (\d+)/.exec(problem);
  if (named) return +named[1];
  const lines = text.split('\n');
  const find = (pattern, from = 0) => {
    for (let i = from; i < lines.length; i++) if (pattern.test(lines[i])) return i;
    return -1;
  };
  let at = -1;
  const declared = /(?:task|input|trigger|output) '([^']+)'/.exec(problem);
  if (declared) at = find(new RegExp(`^\\s*(?:-\\s+)?id:\\s*["']?${escape(declared[1])}["']?\\s*$`));
  const property = /property '([^']+)'/.exec(problem) || /^Expected '([\w.]+)'/.exec(problem);
  if (property) {
    const key = property[1].split('.').pop();
    const under = find(new RegExp(`^\\s*(?:-\\s+)?${escape(key)}\\s*:`), Math.max(0, at));
    if (under >= 0) return under + 1;
  }
  return at >= 0 ? at + 1 : null;
}
