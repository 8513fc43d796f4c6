// What the editor loads the first time the reader needs it (index.js, `later`): search,
// completion and the diagnostics' marks. A reader who opens the playground only to read or to
// press Run never downloads them.
export { search, searchKeymap, highlightSelectionMatches, openSearchPanel } from "@codemirror/search";
export { autocompletion, completionKeymap, startCompletion } from "@codemirror/autocomplete";
export { setDiagnostics, lintKeymap } from "@codemirror/lint";
