// The playground's editor: CodeMirror 6, told everything about the language by the compiler.
//
// This module knows editing (keys, selections, undo, search, tooltips, the DOM); the compiler
// (in the playground's WebAssembly, through the callbacks `createEditor` is given) knows the
// language: the tokens to colour, the diagnostics, what a name is, what can be completed. So
// nothing about Tessera is written twice. Offsets here are UTF-16 code units, as in every
// JavaScript string; the playground converts them to and from the compiler's byte offsets.
//
// Bundled by esbuild (`make editor`) into `dist/editor.js`, which the playground's module
// imports through wasm-bindgen, so it loads with the playground and with no other page; search,
// completion and the diagnostics' marks are in `later.js`, a chunk of their own fetched the first
// time the reader focuses the editor, presses Ctrl+F or Ctrl+Space, or the source has a problem
// to mark (/play's first load has a budget: BENCHMARKS.md, "Site size").

import { EditorState, StateEffect, StateField, Prec, RangeSetBuilder, Compartment } from "@codemirror/state";
import {
  EditorView, Decoration, keymap, lineNumbers, drawSelection, highlightActiveLine,
  highlightActiveLineGutter, hoverTooltip,
} from "@codemirror/view";
import {
  defaultKeymap, history, historyKeymap, indentWithTab, toggleComment,
} from "@codemirror/commands";
import { indentService, indentOnInput, bracketMatching, indentUnit } from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";

// The chunk with search, completion and lint, fetched once.
let laterModule;
const later = () => (laterModule ??= import("./later.js"));

const TAB = "  ";

// Blocks are braces: a line is indented two spaces per brace still open before it, one
// fewer when it starts with `}`. Comments hold no braces in practice, and strings do not exist.
function braceIndent(context, pos) {
  const text = context.state.doc.sliceString(0, context.lineAt(pos).from);
  let depth = 0;
  for (const c of text) {
    if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
  }
  const rest = context.textAfterPos(pos);
  if (/^\s*\}/.test(rest)) depth = Math.max(0, depth - 1);
  return depth * TAB.length;
}

// Braces as a reader types a whole kernel (issue 68). A `{` typed at the end of a line whose
// next line is indented deeper (a loop put around lines already there) opens without a `}`:
// the reader closes it below those lines. A `}` typed where the braces already balance and
// only blanks stand between the caret and a `}` (the one `{` + Enter put there) types over that
// one, as closeBrackets does on one line, instead of leaving a stray `}`.
function balanced(text) {
  let depth = 0;
  for (const c of text) {
    if (c === "{") depth++;
    else if (c === "}") depth--;
  }
  return depth === 0;
}
const indentOf = (line) => /^\s*/.exec(line.text)[0].length;
const braces = EditorView.inputHandler.of((view, from, to, text) => {
  const state = view.state;
  if (from !== to || state.selection.ranges.length !== 1) return false;
  const line = state.doc.lineAt(from);
  if (text === "{") {
    const atEnd = line.text.slice(from - line.from).trim() === "";
    if (!atEnd || line.number >= state.doc.lines) return false;
    const next = state.doc.line(line.number + 1);
    if (next.text.trim() === "" || indentOf(next) <= indentOf(line)) return false;
    view.dispatch({ changes: { from, insert: "{" }, selection: { anchor: from + 1 }, userEvent: "input.type" });
    return true;
  }
  if (text === "}") {
    const doc = state.doc.toString();
    const closer = /^\s*\}/.exec(doc.slice(from));
    if (!closer || !closer[0].includes("\n") || !balanced(doc)) return false;
    // The caret's line keeps what stands before the caret; the `}` below comes up to it.
    const before = line.text.slice(0, from - line.from);
    if (before.trim() !== "") return false;
    const end = from + closer[0].length;
    const indent = " ".repeat(Math.max(0, indentOf(state.doc.lineAt(end)) ));
    view.dispatch({
      changes: { from: line.from, to: end, insert: indent + "}" },
      selection: { anchor: line.from + indent.length + 1 },
      userEvent: "input.type",
    });
    return true;
  }
  return false;
});

const language = EditorState.languageData.of(() => [{
  commentTokens: { line: "//", block: { open: "/*", close: "*/" } },
  indentOnInput: /^\s*\}$/,
  closeBrackets: { brackets: ["(", "[", "{"] },
}]);

// Decorations from the compiler's tokens: `tokens(doc)` gives [from, to, class, ...] as a
// Uint32Array, `classes[class]` the CSS class the site styles (tok-keyword, …).
function highlighting(tokens, classes) {
  const marks = classes.map((c) => Decoration.mark({ class: c }));
  const build = (doc) => {
    const builder = new RangeSetBuilder();
    const t = tokens(doc.toString());
    for (let i = 0; i + 2 < t.length; i += 3) {
      if (t[i] < t[i + 1]) builder.add(t[i], t[i + 1], marks[t[i + 2]]);
    }
    return builder.finish();
  };
  return StateField.define({
    create: (state) => build(state.doc),
    update: (value, tr) => (tr.docChanged ? build(tr.state.doc) : value),
    provide: (field) => EditorView.decorations.from(field),
  });
}

// Marks the playground sets: where a run faulted, the span an output line came from.
const setMarks = StateEffect.define();
const marksField = StateField.define({
  create: () => Decoration.none,
  update(value, tr) {
    value = value.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setMarks)) {
        const length = tr.state.doc.length;
        const ranges = effect.value
          .filter((m) => m.from < m.to && m.to <= length)
          .sort((a, b) => a.from - b.from)
          .map((m) => Decoration.mark({ class: m.class }).range(m.from, m.to));
        value = Decoration.set(ranges, true);
      }
    }
    return value;
  },
  provide: (field) => EditorView.decorations.from(field),
});

function diagnosticMessage(d) {
  return () => {
    const box = document.createElement("span");
    const code = document.createElement("a");
    code.className = "diag-code";
    code.href = `/docs/errors#${d.code}`;
    code.textContent = d.code;
    box.append(code, " ", d.message);
    if (d.help) {
      const help = document.createElement("div");
      help.className = "help";
      help.textContent = `help: ${d.help}`;
      box.append(help);
    }
    return box;
  };
}

/**
 * The editor, in `parent`. `options`: `doc`, `label`, `describedBy` (the id of the text that
 * tells how to leave the editor), and the callbacks `onChange(doc)`, `onRun()`,
 * `onPointer(offset | null)`, `tokens(doc)`, `classes`, `hover(offset) → text | null`,
 * `complete(doc, offset, explicit) → { from, options: [{ label, type, detail }] } | null`.
 */
export function createEditor(parent, options) {
  let quiet = false;
  const run = () => {
    options.onRun();
    return true;
  };
  const completion = (context) => {
    const found = options.complete(context.state.doc.toString(), context.pos, context.explicit);
    return found ? { from: found.from, options: found.options, validFor: /^\w*$/ } : null;
  };
  const tooltip = hoverTooltip((view, pos) => {
    const text = options.hover(pos);
    if (!text) return null;
    return {
      pos,
      create() {
        const dom = document.createElement("div");
        dom.className = "hover-tooltip";
        dom.textContent = text;
        return { dom };
      },
    };
  });
  // Search, completion and lint join the editor when their chunk is there (`later`), with
  // their keys ahead of the ones that load it.
  const laterParts = new Compartment();
  let loaded;
  const loadLater = () =>
    (loaded ??= later().then((m) => {
      if (!destroyed) {
        view.dispatch({
          effects: laterParts.reconfigure([
            autocompletionOf(m),
            m.highlightSelectionMatches(),
            m.search({ top: true }),
            Prec.high(keymap.of([...m.searchKeymap, ...m.completionKeymap, ...m.lintKeymap])),
          ]),
        });
      }
      return m;
    }));
  const autocompletionOf = (m) => m.autocompletion({ override: [completion], icons: false });
  let destroyed = false;
  // The diagnostics last given, marked once lint is there.
  let diagnosticsShown = false;
  let latestDiagnostics;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        Prec.high(braces),
        closeBrackets(),
        highlightActiveLine(),
        laterParts.of([]),
        indentUnit.of(TAB),
        EditorState.tabSize.of(2),
        language,
        indentService.of(braceIndent),
        highlighting(options.tokens, options.classes),
        marksField,
        tooltip,
        Prec.highest(keymap.of([{ key: "Mod-Enter", run }])),
        keymap.of([
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...historyKeymap,
          // Until the chunk is there: its keys load it and then do what they do.
          { key: "Mod-f", run: (v) => (loadLater().then((m) => m.openSearchPanel(v)), true) },
          { key: "Ctrl-Space", run: (v) => (loadLater().then((m) => m.startCompletion(v)), true) },
          { key: "Mod-/", run: toggleComment },
          indentWithTab,
        ]),
        EditorView.contentAttributes.of({
          // CodeMirror's scroller takes no focus (tabindex -1); the content, in the tab
          // order, is what a keyboard scrolls it with (axe: scrollable-region-focusable).
          tabindex: "0",
          "aria-label": options.label,
          "aria-describedby": options.describedBy,
          "data-testid": "editor-content",
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !quiet) options.onChange(update.state.doc.toString());
          if (update.selectionSet || update.docChanged) {
            const head = update.state.selection.main.head;
            options.onPointer(head);
          }
        }),
        EditorView.domEventHandlers({
          mousemove(event, view) {
            options.onPointer(view.posAtCoords({ x: event.clientX, y: event.clientY }));
          },
          focus() {
            loadLater();
          },
        }),
      ],
    }),
  });
  // For tests and tools: the text as the editor has it, a caret put at an offset, one edit as
  // typing makes it, and the text replaced as a paste would.
  view.dom.tesseraDoc = () => view.state.doc.toString();
  view.dom.tesseraCaret = (at) => {
    view.focus();
    view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  };
  view.dom.tesseraEdit = (from, to, insert) =>
    view.dispatch({ changes: { from, to, insert }, userEvent: "input.type" });
  view.dom.tesseraPaste = (text) =>
    view.dispatch({
      changes: { from: 0, to: view.state.doc.length, insert: text },
      userEvent: "input.paste",
    });
  // Marks and scrolling wait for the next frame, as one transaction: a CodeMirror update reads
  // the DOM selection, which makes the browser lay the page out, so applying them in the middle
  // of the page's own updates (a stepper's step) would lay it out twice.
  let nextFrame = {};
  let frame = 0;
  const schedule = () => {
    frame ||= requestAnimationFrame(() => {
      frame = 0;
      const { marks, reveal } = nextFrame;
      nextFrame = {};
      if (marks) view.dispatch({ effects: setMarks.of(marks) });
      if (reveal !== undefined) revealWithin(Math.min(reveal, view.state.doc.length));
    });
  };
  // Scrolls the editor's own box so that the line at `position` shows, and never the page:
  // CodeMirror's scrollIntoView scrolls every scrolling ancestor too, and on a phone, where the
  // editor sits far above the stepper, each step would take the reader's controls away from
  // under their finger (the stepper repeats its line there).
  const revealWithin = (position) =>
    view.requestMeasure({
      read() {
        const scroller = view.scrollDOM;
        const line = view.lineBlockAt(position);
        const top = view.documentTop - scroller.getBoundingClientRect().top + scroller.scrollTop;
        return { from: top + line.top, to: top + line.bottom, scroller };
      },
      write({ from, to, scroller }) {
        const margin = 20;
        const { scrollTop, clientHeight } = scroller;
        if (from < scrollTop) scroller.scrollTop = Math.max(0, from - margin);
        else if (to > scrollTop + clientHeight) scroller.scrollTop = to - clientHeight + margin;
      },
    });
  return {
    /** Replaces the text (a loaded example, a link), keeping undo for the reader's edits. */
    setDoc(text) {
      if (text === view.state.doc.toString()) return;
      quiet = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      quiet = false;
    },
    /** `list`: [{ from, to, severity, code, message, help, fix: { from, to, insert } | null }];
     * a fix is offered as the diagnostic's action (in its tooltip and the lint panel). */
    setDiagnostics(list) {
      const length = view.state.doc.length;
      const diagnostics = list.map((d) => ({
        from: Math.min(d.from, length),
        to: Math.min(Math.max(d.to, d.from), length),
        severity: d.severity,
        message: `${d.code}: ${d.message}`,
        renderMessage: diagnosticMessage(d),
        actions:
          d.fix && d.fix.to <= length
            ? [
                {
                  name: `Write ${d.fix.insert}`,
                  apply: (v) =>
                    v.dispatch({ changes: { from: d.fix.from, to: d.fix.to, insert: d.fix.insert } }),
                },
              ]
            : undefined,
      }));
      // No problem to mark and none marked: nothing to load.
      if (!diagnostics.length && !diagnosticsShown) return;
      latestDiagnostics = diagnostics;
      loadLater().then((m) => {
        if (destroyed || latestDiagnostics !== diagnostics) return;
        diagnosticsShown = diagnostics.length > 0;
        view.dispatch(m.setDiagnostics(view.state, diagnostics));
      });
    },
    /** `list`: [{ from, to, class }]. */
    setMarks(list) {
      nextFrame.marks = list;
      schedule();
    },
    /** Scrolls UTF-16 offset `at` into the editor's box, if it is not in view there, without moving
     * the caret or the page. */
    reveal(at) {
      nextFrame.reveal = at;
      schedule();
    },
    focus() {
      view.focus();
    },
    destroy() {
      destroyed = true;
      cancelAnimationFrame(frame);
      view.destroy();
    },
  };
}
