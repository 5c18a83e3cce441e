// The layers panel: the stack, front-most first, to select,
// reorder by dragging, rename, show or hide, lock, duplicate, delete, and add a layer
// of every kind the format has.

import { copy } from "./doc.js";
import { el } from "./dom.js";

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
};

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

export function newLayer(doc, schema, kind) {
  const kindSchema = schema.layer(kind);
  const layer = { type: kind, name: doc.freeName(kind) };
  for (const name of kindSchema.required || []) {
    if (!(name in layer)) layer[name] = schema.initial(kindSchema.properties[name]);
  }
  Object.assign(layer, SAMPLES[kind] || {});
  if (kind === "image") layer.src = placeholderImage();
  const template = doc.template;
  layer.width = Math.min(layer.width || 200, template.width);
  layer.height = Math.min(layer.height || 100, template.height);
  layer.x = Math.round((template.width - layer.width) / 2);
  layer.y = Math.round((template.height - layer.height) / 2);
  // a layer added where another was added goes a step down and right, not on top of it
  while (doc.layers.some((other) => other.x === layer.x && other.y === layer.y)) {
    layer.x += 20;
    layer.y += 20;
  }
  return layer;
}

export class LayersPanel {
  constructor(doc, schema, parts) {
    this.doc = doc;
    this.schema = schema;
    this.list = parts.list;
    this.kind = parts.kind;
    this.dragged = null;
    this.offersVideo = null; // whether the kinds offered include video clips
    parts.add.addEventListener("click", () => this.add(this.kind.value));
    parts.duplicate.addEventListener("click", () => this.duplicate());
    parts.remove.addEventListener("click", () => this.remove());
  }

  /** The kinds to offer: video clips only in video templates. */
  showKinds() {
    const video = Boolean(this.doc.template?.video);
    if (video === this.offersVideo) return; // drawn anew only when it changes: the kind chosen stays
    this.offersVideo = video;
    const chosen = this.kind.value;
    const kinds = Object.keys(this.schema.kinds).filter((kind) => kind !== "video" || video);
    this.kind.replaceChildren(...kinds.map((kind) => new Option(kind, kind)));
    if (kinds.includes(chosen)) this.kind.value = chosen;
  }

  add(kind) {
    const layer = newLayer(this.doc, this.schema, kind);
    this.doc.change((template) => template.layers.push(layer));
    this.doc.select([layer.name]);
  }

  duplicate() {
    const copies = this.doc.selected().map((layer) => ({
      ...copy(layer),
      name: this.doc.freeName(`${layer.name} copy`),
      x: layer.x + 20,
      y: layer.y + 20,
    }));
    if (!copies.length) return;
    const names = new Set(this.doc.selection);
    this.doc.change((template) => {
      // the copies go right above the front-most of their originals
      const last = Math.max(...template.layers.map((layer, i) => (names.has(layer.name) ? i : -1)));
      template.layers.splice(last + 1, 0, ...copies);
    });
    this.doc.select(copies.map((made) => made.name));
  }

  remove() {
    const names = new Set(this.doc.selection);
    if (!names.size) return;
    this.doc.change((template) => {
      template.layers = template.layers.filter((layer) => !names.has(layer.name));
    });
    this.doc.select([]);
  }

  /** The rows, front-most first (as design tools list them); each knows its place in
   * the paint order. */
  draw() {
    const rows = this.doc.layers.map((layer, index) => this.row(layer, index));
    this.list.replaceChildren(...rows.reverse());
  }

  /** Marks the selected rows (without drawing them anew: a double click stays on its row). */
  showSelection() {
    for (const row of this.list.children) {
      const selected = this.doc.selection.has(row.dataset.name);
      row.classList.toggle("selected", selected);
      row.setAttribute("aria-selected", String(selected));
    }
  }

  row(layer, index) {
    const item = el("li", { className: "layer-row", draggable: true });
    item.dataset.name = layer.name;
    item.classList.toggle("selected", this.doc.selection.has(layer.name));
    item.setAttribute("aria-selected", String(this.doc.selection.has(layer.name)));
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
    item.append(visible, locked, name, el("small", { textContent: layer.type }));
    item.addEventListener("dragstart", (event) => {
      this.dragged = index;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", layer.name);
    });
    item.addEventListener("dragover", (event) => {
      event.preventDefault();
      // moved behind the target it shows below it; moved in front, above it
      item.classList.add(this.dragged > index ? "drop-below" : "drop-above");
    });
    item.addEventListener("dragleave", () => item.classList.remove("drop-below", "drop-above"));
    item.addEventListener("drop", (event) => {
      event.preventDefault();
      if (this.dragged !== null && this.dragged !== index) this.move(this.dragged, index);
      this.dragged = null;
    });
    return item;
  }

  /** Reorders: the layer at ``from`` goes to ``to`` in the paint order. */
  move(from, to) {
    this.doc.change((template) => {
      const [layer] = template.layers.splice(from, 1);
      template.layers.splice(to, 0, layer);
    });
  }

  set(name, field, value) {
    this.doc.change((template) => {
      const layer = template.layers.find((l) => l.name === name);
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
          template.layers.find((l) => l.name === old).name = name;
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
