// The template being edited, the selection, and the history of changes.
// Every change goes through ``change``, which keeps a snapshot for undo; typing in one
// field without a pause, and one drag, are one step each.

import { locate, walk } from "./tree.js";

const COALESCE_MS = 800;
const HISTORY_LIMIT = 200;

export class Doc extends EventTarget {
  constructor() {
    super();
    this.template = null;
    this.selection = new Set(); // layer names (names are unique in a template)
    this.past = [];
    this.future = [];
    this.lastKey = null;
    this.lastAt = 0;
    this.savedJson = null; // the template as last saved or opened
    this.boxes = {}; // name -> [x, y, width, height]: where the last render's layout put frames and their layers
  }

  /** A template opened or loaded: history starts anew. */
  open(template) {
    this.template = template;
    this.past = [];
    this.future = [];
    this.lastKey = null;
    this.savedJson = JSON.stringify(template);
    this.selection = new Set();
    this.emit("open");
  }

  /** ``template`` (as it was sent) is what is saved now. */
  markSaved(template) {
    this.savedJson = JSON.stringify(template);
    this.emit("saved");
  }

  get dirty() {
    return this.template !== null && JSON.stringify(this.template) !== this.savedJson;
  }

  /** ``mutate(template)`` as one undoable step; changes with the same ``key`` within
   * ``within`` ms of each other are one step (typing in a field; a drag, whose key is its
   * own, is one step however long it pauses). */
  change(mutate, { key = null, source = "", within = COALESCE_MS } = {}) {
    const now = performance.now();
    const merging = key !== null && key === this.lastKey && now - this.lastAt < within;
    if (!merging) {
      this.past.push({ template: copy(this.template), selection: [...this.selection] });
      if (this.past.length > HISTORY_LIMIT) this.past.shift();
    }
    this.lastKey = key;
    this.lastAt = now;
    this.future = [];
    mutate(this.template);
    this.keepSelectionValid();
    this.emit("change", { source });
  }

  /** Ends a run of merged changes: the next change is a step of its own. */
  settle() {
    this.lastKey = null;
  }

  undo() {
    this.step(this.past, this.future);
  }

  redo() {
    this.step(this.future, this.past);
  }

  step(from, to) {
    const previous = from.pop();
    if (!previous) return;
    to.push({ template: copy(this.template), selection: [...this.selection] });
    this.template = previous.template;
    this.selection = new Set(previous.selection);
    this.lastKey = null;
    this.keepSelectionValid();
    this.emit("change", { source: "history" });
    this.emit("select");
  }

  select(names, { add = false } = {}) {
    const next = add ? new Set(this.selection) : new Set();
    for (const name of names) {
      if (add && next.has(name)) next.delete(name);
      else next.add(name);
    }
    this.selection = next;
    this.emit("select");
  }

  keepSelectionValid() {
    const names = new Set(this.all().map((layer) => layer.name));
    this.selection = new Set([...this.selection].filter((name) => names.has(name)));
  }

  /** The layers on the canvas itself (frames hold the others). */
  get layers() {
    return this.template?.layers || [];
  }

  /** Every layer, those in frames included, in paint order. */
  all() {
    return [...walk(this.template?.layers)].map((entry) => entry.layer);
  }

  layer(name) {
    return locate(this.template, name)?.layer;
  }

  /** Where the layer is: ``{layer, parent, siblings, index, depth, path}`` (see tree.js). */
  locate(name) {
    return locate(this.template, name);
  }

  selected() {
    return this.all().filter((layer) => this.selection.has(layer.name));
  }

  /** A name no layer has yet: ``base``, ``base 2``, … (``taken``: names given meanwhile). */
  freeName(base, taken = new Set()) {
    const names = new Set([...this.all().map((layer) => layer.name), ...taken]);
    if (!names.has(base)) return base;
    for (let n = 2; ; n++) if (!names.has(`${base} ${n}`)) return `${base} ${n}`;
  }

  emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** A copy of JSON data whose strings are shared, not copied (strings cannot change): a
 * step of the history costs the template's structure, not its uploaded images again. */
export function copy(value) {
  if (Array.isArray(value)) return value.map(copy);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copy(item)]));
  }
  return value;
}

// ------------------------------------------------------------------ paths into the JSON

/** ``["layers", 2, "focus", "x"]`` -> the value there (undefined when absent). */
export function getAt(root, path) {
  return path.reduce((node, part) => (node == null ? undefined : node[part]), root);
}

/** Sets the value at ``path``; ``undefined`` removes the field (back to its default). */
export function setAt(root, path, value) {
  let node = root;
  for (const [index, part] of path.slice(0, -1).entries()) {
    if (node[part] == null || typeof node[part] !== "object") node[part] = typeof path[index + 1] === "number" ? [] : {};
    node = node[part];
  }
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(last, 1);
    else delete node[last];
  } else {
    node[last] = value;
  }
}

/** "layers[2].focus.x" as the model writes paths in its messages. */
export function pathText(path) {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : i ? `.${part}` : part)).join("");
}
