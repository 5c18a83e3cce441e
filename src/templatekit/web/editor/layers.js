// The layers panel: the stack, front-most first, each frame with the layers it holds
// under it, to select, reorder and move into or out of frames by dragging, rename, show
// or hide, lock, duplicate, delete, put in a new frame, and add a layer of every kind.

import { copy } from "./doc.js";
import { el } from "./dom.js";
import { flows, holds, isFrame, listed, localBox, locate, moveLayer, wrapInFrame } from "./tree.js";

/** What a new layer of a kind starts with besides the schema's defaults: a size that
 * suits it and a value to show. A kind not listed gets the schema's defaults. */
const SAMPLES = {
  text: { width: 480, height: 80, text: "Your text here", size: 48 },
  image: { width: 320, height: 240, fit: "cover" },
  shape: { width: 240, height: 160, fill: "#3b82f6" },
  alert: { width: 420, height: 96, title: "Heads up", text: "Something worth knowing." },
  signature: { width: 320, height: 120, text: "Jane Doe", title: "Director" },
  barcode: { width: 320, height: 120, barcode: "123456789012" },
  qrcode: { width: 200, height: 200, qrcode: "https://example.com" },
  star: { width: 240, height: 48, star: 4 },
  table: { width: 480, height: 200, rows: [{ item: "Coffee", price: 3.5 }, { item: "Tea", price: 2.8 }] },
  chart: { width: 480, height: 300, rows: [{ label: "Q1", value: 12 }, { label: "Q2", value: 19 }, { label: "Q3", value: 15 }] },
  keyvalue: { width: 420, height: 120, rows: [{ key: "Date", value: "12 May" }, { key: "Place", value: "Berlin" }] },
  video: { width: 480, height: 270, src: "" },
  captions: { width: 640, height: 120, cues: [{ start: 0, end: 2, text: "Your captions here" }], wordHighlight: { color: "#facc15" } },
  frame: { width: 400, height: 240, layout: "column", gap: 16, padding: 24, fill: "#f1f5f9", radius: 12 },
};

/** Kinds that only a video template has. */
const VIDEO_ONLY = ["video", "captions"];

/** A picture to stand in for an image until one is chosen (a data URI, drawn here). */
function placeholderImage() {
  const canvas = Object.assign(document.createElement("canvas"), { width: 320, height: 240 });
  const g = canvas.getContext("2d");
  g.fillStyle = "#e2e8f0";
  g.fillRect(0, 0, 320, 240);
  g.fillStyle = "#94a3b8";
  g.beginPath();
  g.moveTo(40, 200);
  g.lineTo(130, 90);
  g.lineTo(200, 170);
  g.lineTo(240, 130);
  g.lineTo(290, 200);
  g.fill();
  g.beginPath();
  g.arc(240, 70, 22, 0, Math.PI * 2);
  g.fill();
  return canvas.toDataURL("image/png");
}

/** A new layer of ``kind``, centred in ``within`` (a box in its parent's coordinates). */
export function newLayer(doc, schema, kind, within) {
  const kindSchema = schema.layer(kind);
  const layer = { type: kind, name: doc.freeName(kind) };
  for (const name of kindSchema.required || []) {
    if (!(name in layer)) layer[name] = schema.initial(kindSchema.properties[name]);
  }
  Object.assign(layer, SAMPLES[kind] || {});
  if (kind === "image") layer.src = placeholderImage();
  layer.width = Math.min(layer.width || 200, within.width);
  layer.height = Math.min(layer.height || 100, within.height);
  layer.x = Math.round((within.width - layer.width) / 2);
  layer.y = Math.round((within.height - layer.height) / 2);
  // a layer added where another was added goes a step down and right, not on top of it
  while (doc.all().some((other) => other.x === layer.x && other.y === layer.y)) {
    layer.x += 20;
    layer.y += 20;
  }
  return layer;
}

/** ``layer`` copied with new names for it and every layer it holds (names are unique
 * across the template). */
function copied(doc, layer, taken) {
  const made = { ...copy(layer), name: doc.freeName(`${layer.name} copy`, taken) };
  taken.add(made.name);
  if (isFrame(layer)) made.layers = (layer.layers || []).map((child) => copied(doc, child, taken));
  return made;
}

export class LayersPanel {
  constructor(doc, schema, parts) {
    this.doc = doc;
    this.schema = schema;
    this.list = parts.list;
    this.kind = parts.kind;
    this.dragged = null; // the name of the row being dragged
    this.offersVideo = null; // whether the kinds offered include video clips
    parts.add.addEventListener("click", () => this.add(this.kind.value));
    parts.duplicate.addEventListener("click", () => this.duplicate());
    parts.remove.addEventListener("click", () => this.remove());
    parts.frame.addEventListener("click", () => this.frameSelection());
  }

  /** The kinds to offer: clips and captions only in video templates. */
  showKinds() {
    const video = Boolean(this.doc.template?.video);
    if (video === this.offersVideo) return; // drawn anew only when it changes: the kind chosen stays
    this.offersVideo = video;
    const chosen = this.kind.value;
    const kinds = Object.keys(this.schema.kinds).filter((kind) => !VIDEO_ONLY.includes(kind) || video);
    this.kind.replaceChildren(...kinds.map((kind) => new Option(kind, kind)));
    if (kinds.includes(chosen)) this.kind.value = chosen;
  }

  /** A new layer: into the selected frame when one frame is selected, else on the canvas. */
  add(kind) {
    const [selected] = this.doc.selected();
    const into = this.doc.selection.size === 1 && isFrame(selected) ? selected : null;
    const within = into ? localBox(this.doc.locate(into.name), this.doc.boxes) : this.doc.template;
    const layer = newLayer(this.doc, this.schema, kind, within);
    if (flows(into)) {
      delete layer.x;
      delete layer.y;
    }
    this.doc.change((template) => {
      if (into) (locate(template, into.name).layer.layers ||= []).push(layer);
      else template.layers.push(layer);
    });
    this.doc.select([layer.name]);
  }

  duplicate() {
    const taken = new Set();
    const originals = this.doc.selected().filter((layer) => !this.doc.selected().some((other) => other !== layer && holds(other, layer.name)));
    const copies = originals.map((layer) => {
      const made = copied(this.doc, layer, taken);
      if (!flows(this.doc.locate(layer.name).parent)) Object.assign(made, { x: (layer.x ?? 0) + 20, y: (layer.y ?? 0) + 20 });
      return { of: layer.name, made };
    });
    if (!copies.length) return;
    this.doc.change((template) => {
      // each copy goes right above its original, in the same frame
      for (const { of, made } of copies) {
        const { siblings, index } = locate(template, of);
        siblings.splice(index + 1, 0, made);
      }
    });
    this.doc.select(copies.map(({ made }) => made.name));
  }

  remove() {
    const names = new Set(this.doc.selection);
    if (!names.size) return;
    const without = (layers) =>
      layers.filter((layer) => !names.has(layer.name)).map((layer) => (isFrame(layer) ? { ...layer, layers: without(layer.layers || []) } : layer));
    this.doc.change((template) => {
      template.layers = without(template.layers);
    });
    this.doc.select([]);
  }

  /** "Frame selection" (Ctrl+Alt+G): the selected layers go into a new frame at their bounds. */
  frameSelection() {
    const names = [...this.doc.selection];
    if (!names.length) return;
    const frameName = this.doc.freeName("frame");
    const refused = wrapInFrame(copy(this.doc.template), names, frameName, this.doc.boxes);
    if (typeof refused === "string") {
      this.doc.emit("refused", { message: refused });
      return;
    }
    this.doc.change((template) => wrapInFrame(template, names, frameName, this.doc.boxes));
    this.doc.select([frameName]);
  }

  /** The rows, front-most first (as design tools list them), each frame followed by
   * the layers it holds, indented. */
  draw() {
    this.list.replaceChildren(...listed(this.doc.layers).map(({ layer, depth }) => this.row(layer, depth)));
  }

  /** Marks the selected rows (without drawing them anew: a double click stays on its row). */
  showSelection() {
    for (const row of this.list.children) {
      const selected = this.doc.selection.has(row.dataset.name);
      row.classList.toggle("selected", selected);
      row.setAttribute("aria-selected", String(selected));
    }
  }

  row(layer, depth) {
    const item = el("li", { className: "layer-row", draggable: true });
    item.dataset.name = layer.name;
    item.dataset.depth = String(depth);
    item.style.paddingLeft = `${0.3 + depth * 1.1}rem`;
    item.classList.toggle("frame-row", isFrame(layer));
    item.classList.toggle("selected", this.doc.selection.has(layer.name));
    item.setAttribute("aria-selected", String(this.doc.selection.has(layer.name)));
    item.setAttribute("aria-level", String(depth + 1));
    const visible = el("input", { type: "checkbox", checked: layer.visible !== false, title: "visible" });
    visible.setAttribute("aria-label", `show ${layer.name}`);
    visible.addEventListener("change", () => this.set(layer.name, "visible", visible.checked ? undefined : false));
    const locked = el("button", { type: "button", className: "lock", textContent: layer.locked ? "locked" : "lock", title: layer.locked ? "unlock" : "lock" });
    locked.setAttribute("aria-label", `${layer.locked ? "unlock" : "lock"} ${layer.name}`);
    locked.setAttribute("aria-pressed", String(Boolean(layer.locked)));
    locked.addEventListener("click", () => this.set(layer.name, "locked", layer.locked ? undefined : true));
    const name = el("button", { type: "button", className: "layer-name", textContent: layer.name, title: "click: select, double-click: rename" });
    name.addEventListener("click", (event) => this.doc.select([layer.name], { add: event.shiftKey }));
    name.addEventListener("dblclick", () => this.rename(item, layer.name));
    name.addEventListener("keydown", (event) => event.key === "F2" && this.rename(item, layer.name));
    const kind = isFrame(layer) && layer.layout && layer.layout !== "none" ? layer.layout : layer.type;
    item.append(visible, locked, name, el("small", { textContent: kind }));
    item.addEventListener("dragstart", (event) => {
      this.dragged = layer.name;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", layer.name);
    });
    item.addEventListener("dragend", () => (this.dragged = null));
    item.addEventListener("dragover", (event) => {
      const zone = this.zone(item, layer, event);
      if (!zone) return;
      event.preventDefault();
      item.classList.remove("drop-below", "drop-above", "drop-into");
      item.classList.add(`drop-${zone}`);
    });
    item.addEventListener("dragleave", () => item.classList.remove("drop-below", "drop-above", "drop-into"));
    item.addEventListener("drop", (event) => {
      event.preventDefault();
      const zone = this.zone(item, layer, event);
      if (zone) this.drop(this.dragged, layer.name, zone);
      this.dragged = null;
    });
    return item;
  }

  /** Where a row dropped on ``item`` goes: "above" it (in front), "below" it (behind), or
   * "into" it (a frame, as its front-most layer); null where it cannot go (into itself).
   * A frame's row takes layers in its middle half; another row is taken as its place,
   * from whichever side the dragged row comes (or by the half the pointer is in). */
  zone(item, layer, event) {
    const dragged = this.dragged;
    if (dragged === null || dragged === layer.name || holds(this.doc.layer(dragged), layer.name)) return null;
    const rect = item.getBoundingClientRect();
    const share = (event.clientY - rect.top) / rect.height;
    if (isFrame(layer) && share > 0.25 && share < 0.75) return "into";
    const from = this.doc.locate(dragged);
    const to = this.doc.locate(layer.name);
    if (from.parent === to.parent && !isFrame(layer)) return from.index > to.index ? "below" : "above";
    return share < 0.5 ? "above" : "below";
  }

  /** Moves the layer named ``name`` next to (or into) the layer named ``target``. */
  drop(name, target, zone) {
    if (name === null) return;
    this.doc.change((template) => {
      const to = locate(template, target);
      if (zone === "into") moveLayer(template, name, target, (to.layer.layers || []).length, this.doc.boxes);
      else moveLayer(template, name, to.parent?.name ?? null, to.index + (zone === "above" ? 1 : 0), this.doc.boxes);
    });
  }

  set(name, field, value) {
    this.doc.change((template) => {
      const layer = locate(template, name).layer;
      if (value === undefined) delete layer[field];
      else layer[field] = value;
    });
  }

  rename(item, old) {
    const input = el("input", { value: old, className: "rename" });
    input.setAttribute("aria-label", `new name of ${old}`);
    item.querySelector(".layer-name").replaceWith(input);
    input.focus();
    input.select();
    let done = false;
    const finish = (keep) => {
      if (done) return;
      done = true;
      const name = input.value.trim();
      if (keep && name !== old && this.doc.layer(name)) {
        input.setCustomValidity(`a layer is already named ${name}`);
        input.reportValidity();
        done = false; // stays open, to choose another name
        return;
      }
      if (keep && name && name !== old) {
        this.doc.change((template) => {
          locate(template, old).layer.name = name;
        });
        this.doc.select([name]);
      } else {
        this.draw();
      }
    };
    input.addEventListener("input", () => input.setCustomValidity(""));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") finish(true);
      if (event.key === "Escape") finish(false);
    });
    input.addEventListener("blur", () => finish(true));
  }
}
