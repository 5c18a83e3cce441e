// The inspector: every field of the selected layer, and the template's settings, as
// forms made from the schema; the model's own message about a field shows at it.

import { pathText, setAt } from "./doc.js";
import { el, round } from "./dom.js";
import { bounds } from "./snap.js";
import { flows, isFrame, localBox, locate, setLayout, walk } from "./tree.js";

const TIMING = ["start", "duration", "animations"];
const PLACE = ["x", "y", "width", "height", "rotation"];
/** Fields every layer has that are seldom changed: kept under "More". */
const MORE = ["opacity", "visible", "locked", "id", "suggestInput"];
/** Shadows, blur, blend mode and mask, which every layer has: under "Effects", after its own fields. */
const EFFECTS = ["shadows", "blur", "blend", "mask"];
/** A frame's auto layout, shown together right after its place. */
const AUTO_LAYOUT = ["layout", "gap", "padding", "align", "justify", "wrap"];
const SKIPPED = new Set(["type", "name", "layers", ...PLACE, ...TIMING, ...MORE, ...EFFECTS, ...AUTO_LAYOUT]);

/** Alignments: the axis, and where on it (0 start, 0.5 centre, 1 end) of the selection's bounds. */
const ALIGNMENTS = {
  "align left": ["x", 0],
  "centre": ["x", 0.5],
  "align right": ["x", 1],
  "align top": ["y", 0],
  "middle": ["y", 0.5],
  "align bottom": ["y", 1],
};
const DISTRIBUTIONS = { "space across": "x", "space down": "y" };
const SIZE = { x: "width", y: "height" };

/** Moves each layer (``{layer, box}``, its box in its parent's coordinates) so that its
 * box's start, centre or end meets the selection's. */
function align(placed, axis, at) {
  const size = SIZE[axis];
  const boxes = placed.map(({ layer, box }) => bounds(box, layer.rotation));
  const start = Math.min(...boxes.map((b) => b[axis]));
  const end = Math.max(...boxes.map((b) => b[axis] + b[size]));
  placed.forEach(({ layer, box }, i) => {
    const target = start + (end - start) * at - boxes[i][size] * at;
    layer[axis] = round(box[axis] + target - boxes[i][axis]);
  });
}

/** Equal gaps between the layers' boxes along ``axis``; the outermost stay put. */
function distribute(placed, axis) {
  const size = SIZE[axis];
  const order = placed.map(({ layer, box }) => ({ layer, box, bounds: bounds(box, layer.rotation) }));
  order.sort((a, b) => a.bounds[axis] - b.bounds[axis]);
  const first = order[0].bounds[axis];
  const last = Math.max(...order.map(({ bounds: b }) => b[axis] + b[size]));
  const gap = (last - first - order.reduce((sum, { bounds: b }) => sum + b[size], 0)) / (order.length - 1);
  let at = first;
  for (const { layer, box, bounds: b } of order) {
    layer[axis] = round(box[axis] + at - b[axis]);
    at += b[size] + gap;
  }
}

export const SIZE_PRESETS = [
  ["Open Graph / link preview", 1200, 630],
  ["Instagram post", 1080, 1080],
  ["Instagram portrait", 1080, 1350],
  ["Story / Reel / TikTok", 1080, 1920],
  ["X / Twitter post", 1600, 900],
  ["LinkedIn post", 1200, 627],
  ["YouTube thumbnail", 1280, 720],
  ["Full HD video", 1920, 1080],
  ["A4 portrait (150 dpi)", 1240, 1754],
  ["US Letter portrait (150 dpi)", 1275, 1650],
  ["Business card (300 dpi)", 1050, 600],
];

export class Inspector extends EventTarget {
  constructor(doc, schema, forms, parts) {
    super();
    this.doc = doc;
    this.schema = schema;
    this.forms = forms;
    this.layerBox = parts.layer;
    this.settingsBox = parts.settings;
    this.problemsBox = parts.problems;
    this.problems = [];
    this.scans = [];
  }

  /** Redraws both forms (not while the change came from a field: that would take the
   * focus and caret away from the field being typed in). */
  draw(source = "") {
    if (source === "inspector") return;
    this.drawLayer();
    this.drawSettings();
    this.showProblems(this.problems);
  }

  drawLayer() {
    const selected = this.doc.selected();
    if (selected.length !== 1) {
      const text = selected.length ? `${selected.length} layers selected.` : "Select a layer on the canvas or in the layers panel.";
      const parts = [el("p", { className: "muted", textContent: text })];
      if (selected.length > 1) parts.push(this.alignment(selected.length));
      this.layerBox.replaceChildren(...parts);
      return;
    }
    const layer = selected[0];
    const entry = this.doc.locate(layer.name);
    const kind = this.schema.layer(layer.type);
    if (!kind) {
      this.layerBox.replaceChildren(el("p", { textContent: `A ${layer.type} layer: a kind this editor does not know.` }));
      return;
    }
    const video = Boolean(this.doc.template.video);
    const set = (name) => (value, structural) => {
      if (name !== "layout" || !isFrame(layer)) return this.set([...entry.path, name], value, structural);
      // its layers go with the layout (see setLayout)
      this.doc.change((template) => setLayout(locate(template, layer.name).layer, value, this.doc.boxes), { source: "inspector-structure" });
    };
    const field = (name) =>
      this.forms.field(name, kind.properties[name], layer[name], [...entry.path, name], set(name), {
        required: (kind.required || []).includes(name),
      });
    const known = (names) => names.filter((name) => name in kind.properties);
    const heading = el("h3", {}, el("span", { textContent: layer.name }), " ", el("small", { textContent: layer.type }));
    // a row or column places what it holds: only the size is the layer's own
    const placedBy = flows(entry.parent) ? entry.parent : null;
    const place = el("div", { className: "place" }, ...known(PLACE.filter((name) => !placedBy || !["x", "y"].includes(name))).map(field));
    const own = Object.keys(kind.properties).filter((name) => !SKIPPED.has(name));
    const scan = el("p", { className: "scan", hidden: true });
    scan.setAttribute("role", "status");
    const parts = [heading, scan, place];
    if (placedBy) parts.push(el("p", { className: "muted small", textContent: `Placed by ${placedBy.name}'s ${placedBy.layout} layout: drag it to reorder.` }));
    if (isFrame(layer)) {
      const auto = el("fieldset", { className: "auto-layout" }, el("legend", { textContent: "Auto layout" }), ...known(AUTO_LAYOUT).map(field));
      parts.push(auto);
    }
    parts.push(...own.map(field));
    if (video) parts.push(el("details", { open: true }, el("summary", { textContent: "Timing" }), ...known(TIMING).map(field)));
    parts.push(el("details", {}, el("summary", { textContent: "Effects" }), ...known(EFFECTS).map(field)));
    parts.push(el("details", {}, el("summary", { textContent: "More" }), ...known(MORE).map(field)));
    this.layerBox.replaceChildren(...parts);
    this.showScans(this.scans);
  }

  /** Buttons that line the selected layers up, or space them evenly (three or more). */
  alignment(count) {
    const box = el("div", { className: "align" });
    box.setAttribute("aria-label", "align the selected layers");
    const actions = [...Object.keys(ALIGNMENTS), ...(count > 2 ? Object.keys(DISTRIBUTIONS) : [])];
    for (const action of actions) {
      const button = el("button", { type: "button", textContent: action });
      button.addEventListener("click", () => this.arrange(action));
      box.append(button);
    }
    return box;
  }

  arrange(action) {
    // locked layers stay where they are, and so do those a row or column places
    const names = this.doc.selected()
      .filter((layer) => !layer.locked && !flows(this.doc.locate(layer.name).parent))
      .map((layer) => layer.name);
    if (names.length < 2) return;
    this.doc.change((template) => {
      const placed = names.map((name) => {
        const entry = locate(template, name);
        return { layer: entry.layer, box: localBox(entry, this.doc.boxes) };
      });
      if (action in ALIGNMENTS) align(placed, ...ALIGNMENTS[action]);
      else distribute(placed, DISTRIBUTIONS[action]);
    });
  }

  /** Whether the selected code scans, from the latest full-size render (in place: the
   * form is not drawn again, so a field being typed in keeps its focus). */
  showScans(scans) {
    this.scans = scans;
    const line = this.layerBox.querySelector(".scan");
    const [layer] = this.doc.selected();
    const found = line && layer && this.doc.selection.size === 1 && scans.find((scan) => scan.layer === layer.name);
    if (!found) {
      if (line) line.hidden = true;
      return;
    }
    line.hidden = false;
    line.className = `scan ${found.scans === true ? "ok" : found.scans === false ? "bad" : "unknown"}`;
    line.textContent = found.scans === true ? "✓ scans" : found.scans === false ? `✗ ${found.message}` : found.message;
  }

  drawSettings() {
    const template = this.doc.template;
    const schema = this.schema.template;
    const presets = el("select", { className: "presets" });
    presets.setAttribute("aria-label", "size preset");
    presets.append(new Option("Size presets…", ""));
    for (const [name, width, height] of SIZE_PRESETS) presets.append(new Option(`${name}: ${width}×${height}`, `${width}x${height}`));
    presets.addEventListener("change", () => {
      if (!presets.value) return;
      const [width, height] = presets.value.split("x").map(Number);
      this.doc.change((t) => Object.assign(t, { width, height }));
    });
    const fields = Object.keys(schema.properties)
      .filter((name) => name !== "layers" && name !== "apiKey")
      .map((name) =>
        this.forms.field(name, schema.properties[name], template[name], [name], (value, structural) => this.set([name], value, structural), {
          required: (schema.required || []).includes(name),
        }),
      );
    this.settingsBox.replaceChildren(presets, ...fields);
  }

  /** A field's new value; the forms are drawn again only after a structural change. */
  set(path, value, structural = false) {
    const source = structural ? "inspector-structure" : "inspector";
    const key = structural ? null : pathText(path);
    this.doc.change((template) => setAt(template, path, value), { key, source });
    this.dispatchEvent(new CustomEvent("set", { detail: { path, key } }));
  }

  /** A value the editor itself changed while a field may be being typed in: shown in its
   * field in place (drawing the form again would take the focus away). */
  showValue(path, value) {
    const input = this.layerBox.querySelector(`[data-path="${CSS.escape(pathText(path))}"] input[type=number]`);
    if (input) input.value = String(value);
  }

  /** The model's messages ("layers[2].size: must be …"), each at its field when shown. */
  showProblems(problems) {
    this.problems = problems;
    for (const shown of document.querySelectorAll(".field.invalid")) {
      shown.classList.remove("invalid");
      shown.querySelector(":scope > .problem").hidden = true;
    }
    const elsewhere = [];
    for (const problem of problems) {
      const cut = problem.indexOf(": ");
      const path = cut > 0 ? problem.slice(0, cut) : "";
      const field = this.fieldAt(path);
      if (!field) {
        elsewhere.push(problem);
        continue;
      }
      field.classList.add("invalid");
      const folded = field.closest("details");
      if (folded) folded.open = true;
      const message = field.querySelector(":scope > .problem");
      message.textContent = problem.slice(cut + 2);
      message.hidden = false;
    }
    this.problemsBox.replaceChildren(...elsewhere.map((problem) => this.problemItem(problem)));
    this.problemsBox.hidden = elsewhere.length === 0;
  }

  /** A problem of a layer not shown: named by the layer (the innermost its path
   * names, ``layers[2].layers[0]``), which a click selects. */
  problemItem(problem) {
    let found = null;
    for (const entry of walk(this.doc.layers)) {
      const path = pathText(entry.path);
      if (problem.startsWith(path) && /^($|[.:\s])/.test(problem.slice(path.length))) found = { entry, path };
    }
    if (!found) return el("li", { textContent: problem });
    const { layer } = found.entry;
    const name = el("button", { type: "button", className: "link", textContent: layer.name, title: "select this layer" });
    name.addEventListener("click", () => this.doc.select([layer.name]));
    return el("li", {}, name, ` ${problem.slice(found.path.length).replace(/^\./, "")}`);
  }

  /** The field a path names, or its nearest shown parent ("layers[1].rows[3].value" -> rows). */
  fieldAt(path) {
    let candidate = path;
    while (candidate) {
      const found = document.querySelector(`.field[data-path="${CSS.escape(candidate)}"]`);
      if (found) return found;
      const cut = Math.max(candidate.lastIndexOf("."), candidate.lastIndexOf("["));
      candidate = cut > 0 ? candidate.slice(0, cut) : "";
    }
    return null;
  }
}
