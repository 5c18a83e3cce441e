// The canvas: the engine's own render of the template (so it shows the exact output),
// refreshed as the design changes (at the size shown while dragging, full size when still),
// under an overlay of the layers' boxes to select, move, resize and rotate them.

import { el, round } from "./dom.js";
import { bounds, linesOf, snapAxis, targets } from "./snap.js";
import { canvasBoxes, flows, holds, insets, isFrame, localBox, locate, moveLayer } from "./tree.js";

const HANDLES = { nw: [-1, -1], n: [0, -1], ne: [1, -1], e: [1, 0], se: [1, 1], s: [0, 1], sw: [-1, 1], w: [-1, 0] };
const SNAP_PX = 6; // screen pixels
const MIN_SIZE = 1;
// a preview's X-Templatekit-<name> headers, by their fields in the body of ?details=json
const DETAILS = { Warnings: "warnings", Scans: "scans", Boxes: "boxes", "Text-Heights": "textHeights", Cues: "cues" };

export class Canvas extends EventTarget {
  constructor(doc, api, parts) {
    super();
    this.doc = doc;
    this.api = api;
    this.stage = parts.stage; // the scrolling area
    this.image = parts.image;
    this.overlay = parts.overlay;
    this.zoom = 1;
    this.fitted = true;
    this.time = null; // a video template's moment to show, or null for the design at rest
    this.grid = 0; // px; 0: no grid snapping
    this.snapping = true;
    this.dragging = false;
    this.inFlight = false;
    this.pending = null; // "quick" or "full": the render to start when the one in flight ends
    this.changedAt = 0;
    // true once a preview's details did not fit in its headers: the image then comes in
    // the JSON with them (one render a change), until they fit again
    this.detailsInBody = false;
    this.overlay.addEventListener("pointerdown", (event) => this.pointerDown(event));
    // a press on the grey stage around the canvas clears the selection or starts a marquee
    this.stage.addEventListener("pointerdown", (event) => event.target === this.stage && this.pointerDown(event));
    new ResizeObserver(() => this.fitted && this.fit()).observe(this.stage);
  }

  // ---------------------------------------------------------------- rendering

  /** The design changed: render it (one render at a time; the newest change wins). */
  changed() {
    this.refresh(this.dragging ? "quick" : "full");
    if (this.fitted && !this.dragging) this.fit();
    else this.layout();
  }

  /** Renders again (the design, or what is shown of it, changed). */
  refresh(kind) {
    this.changedAt = performance.now();
    this.image.dataset.current = "false";
    this.request(kind);
  }

  request(kind) {
    if (this.inFlight) {
      if (this.pending !== "full") this.pending = kind;
      return;
    }
    this.render(kind);
  }

  /** A "full" render is the image at its size, as createImage makes it; a "quick" one,
   * while dragging, is drawn at the size shown on screen (sharp, and quicker). */
  async render(kind) {
    this.inFlight = true;
    const changedAt = this.changedAt;
    const body = { template: this.doc.template };
    if (kind === "quick") body.scale = Math.min(1, Math.max(0.05, this.zoom * window.devicePixelRatio));
    if (this.time !== null) body.time = this.time;
    try {
      if (this.detailsInBody) {
        const query = { details: "json", image: "true" };
        const answer = await this.api.json("/templates/preview", { method: "POST", body, query });
        this.detailsInBody = answer.omitted.length > 0;
        await this.show(imageBlob(answer), kind, changedAt, null, answer);
      } else {
        const response = await this.api.call("/templates/preview", { method: "POST", body });
        // details too large for headers (hundreds of layers with long names) are left out
        // and named; they come whole from the same preview asked with ?details=json
        this.detailsInBody = Boolean(response.headers.get("X-Templatekit-Omitted"));
        const details = this.detailsInBody
          ? await this.api.json("/templates/preview", { method: "POST", body, query: { details: "json" } })
          : null;
        await this.show(await response.blob(), kind, changedAt, response, details);
      }
    } catch (error) {
      this.dispatchEvent(new CustomEvent("failed", { detail: error }));
    } finally {
      this.inFlight = false;
      const next = this.pending;
      this.pending = null;
      if (next) this.render(next);
      else if (kind === "quick" && !this.dragging) this.render("full");
    }
  }

  async show(blob, kind, changedAt, response, details = null) {
    const url = URL.createObjectURL(blob);
    const old = this.image.src;
    await new Promise((resolve, reject) => {
      this.image.addEventListener("load", resolve, { once: true });
      this.image.addEventListener("error", () => reject(new Error("the browser could not show the image")), { once: true });
      this.image.src = url;
    });
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
    delete this.image.dataset.empty; // no broken-image icon before the first render
    this.image.dataset.kind = kind;
    // "true" once the full-size image of the latest change is shown
    this.image.dataset.current = String(kind === "full" && changedAt === this.changedAt);
    const header = (name, absent) => {
      if (details) return details[DETAILS[name]] ?? absent;
      const value = response.headers.get(`X-Templatekit-${name}`);
      return value ? JSON.parse(value) : absent;
    };
    this.doc.boxes = header("Boxes", {});
    if (!this.dragging) this.drawOverlay(); // what layout placed may have moved
    this.dispatchEvent(new CustomEvent("rendered", {
      detail: {
        kind,
        current: this.image.dataset.current === "true",
        scans: header("Scans", null),
        warnings: header("Warnings", []),
        textHeights: header("Text-Heights", {}),
        cues: header("Cues", {}),
      },
    }));
  }

  // ---------------------------------------------------------------- zoom

  fit() {
    const template = this.doc.template;
    if (!template) return;
    const room = { width: this.stage.clientWidth - 48, height: this.stage.clientHeight - 48 };
    this.setZoom(Math.min(1, room.width / template.width, room.height / template.height), true);
  }

  setZoom(zoom, fitted = false) {
    this.zoom = Math.max(0.05, Math.min(8, zoom));
    this.fitted = fitted;
    this.layout();
    this.dispatchEvent(new CustomEvent("zoom", { detail: this.zoom }));
  }

  layout() {
    const template = this.doc.template;
    if (!template) return;
    const width = `${template.width * this.zoom}px`;
    const height = `${template.height * this.zoom}px`;
    for (const node of [this.image, this.overlay]) Object.assign(node.style, { width, height });
    this.showGrid();
    this.drawOverlay();
  }

  setGrid(size) {
    this.grid = size;
    this.showGrid();
  }

  /** The grid's lines over the canvas, when there is one. */
  showGrid() {
    const step = this.grid * this.zoom;
    const line = "rgba(99, 102, 241, 0.18) 1px, transparent 1px";
    Object.assign(this.overlay.style, step >= 4
      ? { backgroundImage: `linear-gradient(90deg, ${line}), linear-gradient(${line})`, backgroundSize: `${step}px ${step}px` }
      : { backgroundImage: "", backgroundSize: "" });
  }

  // ---------------------------------------------------------------- the overlay

  /** Every layer's box on the canvas, by name (see tree.js). */
  placedBoxes() {
    return canvasBoxes(this.doc.template, this.doc.boxes);
  }

  /** The boxes of the layers, each frame's inside its own (so that they move and turn
   * with it), the handles of the selection, snapping guides and ``marks`` (a drop's
   * indicator, gaps and padding). */
  drawOverlay(guides = [], marks = []) {
    const template = this.doc.template;
    if (!template) return;
    const lines = guides.map(({ axis, at }) => {
      const line = el("div", { className: `guide ${axis}` });
      if (axis === "x") line.style.left = `${at * this.zoom}px`;
      else line.style.top = `${at * this.zoom}px`;
      return line;
    });
    const shown = marks.map(({ kind, box }) => this.placed(el("div", { className: `mark ${kind}` }), box));
    this.overlay.replaceChildren(...this.boxNodes(template.layers, null), ...this.handles(), ...shown, ...lines);
  }

  boxNodes(layers, parent) {
    return layers.map((layer, index) => {
      const entry = { layer, parent, index };
      const box = this.placed(el("div", { className: "box", title: layer.name }), localBox(entry, this.doc.boxes), layer.rotation);
      box.dataset.name = layer.name;
      box.classList.toggle("selected", this.doc.selection.has(layer.name));
      box.classList.toggle("hidden-layer", layer.visible === false);
      box.classList.toggle("locked", Boolean(layer.locked));
      if (isFrame(layer)) {
        box.classList.add("frame-layer");
        box.append(...this.boxNodes(layer.layers || [], layer));
      }
      return box;
    });
  }

  /** ``node`` over ``box`` (template px), turned by ``rotation`` degrees. */
  placed(node, box, rotation = 0) {
    const z = this.zoom;
    Object.assign(node.style, {
      left: `${box.x * z}px`,
      top: `${box.y * z}px`,
      width: `${box.width * z}px`,
      height: `${box.height * z}px`,
      transform: rotation ? `rotate(${rotation}deg)` : "",
    });
    return node;
  }

  /** The handles of a single selected layer, above every box so that none hides them. */
  handles() {
    const [layer] = this.doc.selected();
    if (this.doc.selection.size !== 1 || !layer || layer.locked) return [];
    const frame = this.placed(el("div", { className: "frame" }), this.placedBoxes().get(layer.name), layer.rotation);
    frame.dataset.name = layer.name;
    for (const handle of Object.keys(HANDLES)) {
      const knob = el("div", { className: `handle ${handle}`, title: "resize (shift: keep the ratio)" });
      knob.dataset.handle = handle;
      frame.append(knob);
    }
    const rotate = el("div", { className: "handle rotate", title: "rotate (shift: by 15°)" });
    rotate.dataset.handle = "rotate";
    frame.append(rotate);
    return [frame];
  }

  /** Template pixels of a pointer event. */
  point(event) {
    const rect = this.overlay.getBoundingClientRect();
    return { x: (event.clientX - rect.left) / this.zoom, y: (event.clientY - rect.top) / this.zoom };
  }

  pointerDown(event) {
    if (event.button !== 0 || !this.doc.template) return;
    event.preventDefault();
    this.overlay.focus({ preventScroll: true });
    const handle = event.target.dataset.handle;
    const name = event.target.closest(handle ? ".frame" : ".box")?.dataset.name;
    let drag;
    if (handle === "rotate") drag = this.rotation(name);
    else if (handle) drag = this.resizing(name, HANDLES[handle], this.point(event));
    else if (name && !this.doc.layer(name).locked) {
      if (event.shiftKey) this.doc.select([name], { add: true });
      else if (!this.doc.selection.has(name)) this.doc.select([name]);
      drag = this.moving(this.point(event));
    } else {
      if (!event.shiftKey) this.doc.select([]);
      drag = this.marquee(this.point(event), event.shiftKey);
    }
    if (!drag) return;
    this.overlay.setPointerCapture(event.pointerId);
    this.dragging = true;
    const move = (e) => drag.move(this.point(e), e);
    const up = (e) => {
      this.overlay.removeEventListener("pointermove", move);
      this.overlay.removeEventListener("pointerup", up);
      this.overlay.removeEventListener("pointercancel", up);
      this.dragging = false;
      drag.end?.(this.point(e), e);
      this.doc.settle();
      this.drawOverlay();
      if (drag.changed) this.refresh("full");
    };
    this.overlay.addEventListener("pointermove", move);
    this.overlay.addEventListener("pointerup", up);
    this.overlay.addEventListener("pointercancel", up);
  }

  threshold() {
    return SNAP_PX / this.zoom;
  }

  /** Snaps ``lines`` on each axis; the shifts and the guides to draw. */
  snap(xLines, yLines, moving, event) {
    if (!this.snapping || event.altKey) return { dx: 0, dy: 0, guides: [] };
    // a layer snaps to any other, the frames holding it included, but not to what it holds
    const still = (entry) => ![...moving.keys()].some((name) => entry.layer.name === name || this.inside(entry, name));
    const others = [...this.placedBoxes().values()]
      .filter(({ entry }) => entry.layer.visible !== false && still(entry))
      .map((box) => bounds(box, box.entry.layer.rotation));
    const found = targets(this.doc.template, others);
    const sx = snapAxis(xLines, found.x, this.grid, this.threshold());
    const sy = snapAxis(yLines, found.y, this.grid, this.threshold());
    const guides = [];
    if (sx.at !== null) guides.push({ axis: "x", at: sx.at });
    if (sy.at !== null) guides.push({ axis: "y", at: sy.at });
    return { dx: sx.at !== null ? sx.shift : 0, dy: sy.at !== null ? sy.shift : 0, guides };
  }

  /** Whether the layer of ``entry`` is held (at any depth) by the layer named ``name``. */
  inside(entry, name) {
    const outer = this.doc.layer(name);
    return Boolean(outer) && outer.name !== entry.layer.name && holds(outer, entry.layer.name);
  }

  /** A move of the selection: free layers follow the pointer (and one dropped on a row
   * or column frame goes into it); a layer a row or column places is reordered. */
  moving(start) {
    const layers = this.doc.selected().filter((layer) => !layer.locked);
    const placedBy = (layer) => flows(this.doc.locate(layer.name).parent);
    if (layers.length === 1 && placedBy(layers[0])) return this.reordering(layers[0].name, start);
    const free = layers.filter((layer) => !placedBy(layer));
    if (!free.length) return null;
    const placed = this.placedBoxes();
    const origin = new Map(free.map((layer) => [layer.name, { x: layer.x ?? 0, y: layer.y ?? 0 }]));
    const all = free.map((layer) => bounds(placed.get(layer.name), layer.rotation));
    const left = Math.min(...all.map((b) => b.x));
    const top = Math.min(...all.map((b) => b.y));
    const width = Math.max(...all.map((b) => b.x + b.width)) - left;
    const height = Math.max(...all.map((b) => b.y + b.height)) - top;
    const key = `move ${performance.now()}`;
    const drag = { changed: false, into: null };
    drag.move = (point, event) => {
      let dx = Math.round(point.x - start.x);
      let dy = Math.round(point.y - start.y);
      if (!drag.changed && !dx && !dy) return; // a click's jitter is not a move
      const snapped = this.snap(linesOf(left + dx, width), linesOf(top + dy, height), origin, event);
      dx += snapped.dx;
      dy += snapped.dy;
      drag.changed = true;
      this.doc.change((template) => {
        for (const [name, from] of origin) Object.assign(locate(template, name).layer, { x: round(from.x + dx), y: round(from.y + dy) });
      }, { key, within: Infinity });
      drag.into = free.length === 1 ? this.dropTarget(point, free[0].name) : null;
      this.drawOverlay(snapped.guides, drag.into?.marks || []);
    };
    drag.end = () => {
      if (!drag.into) return;
      const { frame, index } = drag.into;
      this.doc.change((template) => moveLayer(template, free[0].name, frame.name, index, this.doc.boxes), { key, within: Infinity });
    };
    return drag;
  }

  /** A layer placed by a row or column: dragged, an outline follows the pointer, the
   * frame shows its padding, gaps and where the layer would go; dropped, it takes that
   * place, goes into another row or column frame, or out onto the canvas. */
  reordering(name, start) {
    const box = this.placedBoxes().get(name);
    const grab = { x: start.x - box.x, y: start.y - box.y };
    const ghost = el("div", { className: "ghost" });
    const drag = { changed: false, into: null };
    const at = (point) => ({ x: point.x - grab.x, y: point.y - grab.y, width: box.width, height: box.height });
    drag.move = (point) => {
      if (!drag.changed && Math.hypot(point.x - start.x, point.y - start.y) < 2) return;
      drag.changed = true;
      drag.into = this.dropTarget(point, name);
      this.drawOverlay([], drag.into?.marks || []);
      this.overlay.append(this.placed(ghost, at(point)));
    };
    drag.end = (point) => {
      ghost.remove();
      if (!drag.changed) return;
      const target = drag.into;
      this.doc.change((template) => {
        if (target) {
          moveLayer(template, name, target.frame.name, target.index, this.doc.boxes);
          return;
        }
        moveLayer(template, name, null, template.layers.length, this.doc.boxes);
        const { x, y } = at(point);
        Object.assign(locate(template, name).layer, { x: Math.round(x), y: Math.round(y) });
      });
    };
    return drag;
  }

  /** The row or column frame under ``point`` that the layer named ``name`` would go
   * into (the innermost; not the layer itself or one it holds): ``{frame, index, marks}``. */
  dropTarget(point, name) {
    const placed = this.placedBoxes();
    let found = null;
    for (const [, box] of placed) {
      const frame = box.entry.layer;
      if (!flows(frame) || frame.visible === false || holds(this.doc.layer(name), frame.name)) continue;
      if (!contains(box, point) || (found && found.depth >= box.entry.depth)) continue;
      found = { frame, box, depth: box.entry.depth };
    }
    if (!found) return null;
    const { frame, box } = found;
    const row = frame.layout === "row";
    const laidOut = (frame.layers || [])
      .map((layer, index) => ({ layer, index, box: this.doc.boxes[layer.name] }))
      .filter(({ layer, box: laid }) => layer.visible !== false && laid);
    const others = laidOut.filter(({ layer }) => layer.name !== name);
    // the first other layer after the pointer (a wrapped row: a later line, or further along this one)
    const after = others.find(({ box: [x, y, w, h] }) =>
      row ? y > point.y || (y + h > point.y && x + w / 2 > point.x) : y + h / 2 > point.y);
    const index = after ? after.index : (frame.layers || []).length;
    return { frame, index, marks: spacingMarks(frame, box, laidOut, others, after, row) };
  }

  resizing(name, [sx, sy], start) {
    const entry = this.doc.locate(name);
    const layer = entry.layer;
    const local = localBox(entry, this.doc.boxes);
    const placed = this.placedBoxes().get(name);
    const offset = { x: placed.x - local.x, y: placed.y - local.y }; // of the frames holding it
    const { x, y, width: w0, height: h0 } = local;
    const placedByLayout = flows(entry.parent);
    const angle = ((layer.rotation || 0) * Math.PI) / 180;
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const centre = { x: x + w0 / 2, y: y + h0 / 2 };
    const key = `resize ${performance.now()}`;
    const drag = { changed: false };
    drag.move = (point, event) => {
      const gx = point.x - start.x;
      const gy = point.y - start.y;
      let lx = gx * cos + gy * sin; // the pointer's move along the layer's own axes
      let ly = -gx * sin + gy * cos;
      let guides = [];
      if (!angle) {
        const edgeX = offset.x + (sx > 0 ? x + w0 + lx : x + lx);
        const edgeY = offset.y + (sy > 0 ? y + h0 + ly : y + ly);
        const snapped = this.snap(sx ? [edgeX] : [], sy ? [edgeY] : [], new Set([name]), event);
        lx += snapped.dx;
        ly += snapped.dy;
        guides = snapped.guides;
      }
      let w = Math.max(MIN_SIZE, w0 + sx * lx);
      let h = Math.max(MIN_SIZE, h0 + sy * ly);
      if (event.shiftKey) {
        const scale = sx && sy ? Math.max(w / w0, h / h0) : sx ? w / w0 : h / h0;
        w = Math.max(MIN_SIZE, w0 * scale);
        h = Math.max(MIN_SIZE, h0 * scale);
      }
      w = round(w);
      h = round(h);
      // the opposite edge or corner stays where it was
      const ax = (-sx * w0) / 2;
      const ay = (-sy * h0) / 2;
      const anchor = { x: centre.x + ax * cos - ay * sin, y: centre.y + ax * sin + ay * cos };
      const bx = (-sx * w) / 2;
      const by = (-sy * h) / 2;
      const c = { x: anchor.x - (bx * cos - by * sin), y: anchor.y - (bx * sin + by * cos) };
      drag.changed = true;
      this.doc.change((template) => {
        const resized = locate(template, name).layer;
        // an axis not dragged keeps its size as it was given ("hug", "fill" or a number)
        if (sx || event.shiftKey) resized.width = w;
        if (sy || event.shiftKey) resized.height = h;
        if (!placedByLayout) Object.assign(resized, { x: round(c.x - w / 2), y: round(c.y - h / 2) });
      }, { key, within: Infinity });
      this.drawOverlay(guides);
    };
    return drag;
  }

  rotation(name) {
    const box = this.placedBoxes().get(name);
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const key = `rotate ${performance.now()}`;
    const drag = { changed: false };
    drag.move = (point, event) => {
      let degrees = (Math.atan2(point.y - centre.y, point.x - centre.x) * 180) / Math.PI + 90;
      if (event.shiftKey) degrees = Math.round(degrees / 15) * 15;
      degrees = ((Math.round(degrees * 10) / 10 + 540) % 360) - 180;
      drag.changed = true;
      this.doc.change((template) => {
        locate(template, name).layer.rotation = degrees;
      }, { key, within: Infinity });
    };
    return drag;
  }

  marquee(start, adding) {
    const band = el("div", { className: "marquee" });
    this.overlay.append(band);
    const before = adding ? [...this.doc.selection] : [];
    const placed = this.placedBoxes();
    const drag = { changed: false };
    drag.move = (point) => {
      const box = {
        x: Math.min(start.x, point.x),
        y: Math.min(start.y, point.y),
        width: Math.abs(point.x - start.x),
        height: Math.abs(point.y - start.y),
      };
      this.placed(band, box);
      // the layers on the canvas itself, as design tools pick with a marquee
      const inside = this.doc.layers.filter((layer) => !layer.locked && overlaps(bounds(placed.get(layer.name), layer.rotation), box));
      this.doc.selection = new Set([...before, ...inside.map((layer) => layer.name)]);
      this.doc.emit("select");
      this.overlay.append(band);
    };
    drag.end = () => band.remove();
    return drag;
  }

  /** Arrow keys: 1 px, 10 px with shift (a layer a row or column places stays). */
  nudge(dx, dy) {
    const names = this.doc.selected()
      .filter((layer) => !layer.locked && !flows(this.doc.locate(layer.name).parent))
      .map((layer) => layer.name);
    if (!names.length) return;
    this.doc.change((template) => {
      for (const name of names) {
        const layer = locate(template, name).layer;
        Object.assign(layer, { x: round((layer.x ?? 0) + dx), y: round((layer.y ?? 0) + dy) });
      }
    }, { key: "nudge" });
  }
}

/** What a row or column frame shows while a layer is dragged in it: its padding, the
 * gaps between its layers (``children``), and a line where the layer would go: before
 * ``after``, or after the last of the ``others``. */
function spacingMarks(frame, box, children, others, after, row) {
  const pad = insets(frame.padding);
  const marks = [
    { kind: "padding", box: { x: box.x, y: box.y, width: box.width, height: pad.top } },
    { kind: "padding", box: { x: box.x, y: box.y + box.height - pad.bottom, width: box.width, height: pad.bottom } },
    { kind: "padding", box: { x: box.x, y: box.y, width: pad.left, height: box.height } },
    { kind: "padding", box: { x: box.x + box.width - pad.right, y: box.y, width: pad.right, height: box.height } },
  ].filter(({ box: b }) => b.width > 0 && b.height > 0);
  const inner = { x: box.x + pad.left, y: box.y + pad.top, width: box.width - pad.left - pad.right, height: box.height - pad.top - pad.bottom };
  const along = row ? 0 : 1;
  for (const [i, { box: laid }] of children.slice(1).entries()) {
    const previous = children[i].box;
    const from = previous[along] + previous[along + 2];
    if (laid[along] - from <= 0) continue; // a new line of a wrapped row
    marks.push({
      kind: "gap",
      box: row
        ? { x: from, y: Math.min(previous[1], laid[1]), width: laid[0] - from, height: Math.max(previous[3], laid[3]) }
        : { x: inner.x, y: from, width: inner.width, height: laid[1] - from },
    });
  }
  // the line where the layer would go: before ``after``, or after the last layer
  const last = others[others.length - 1]?.box;
  const gap = frame.gap ?? 0;
  const laidAfter = after?.box;
  const at = laidAfter ? laidAfter[along] - gap / 2 : last ? last[along] + last[along + 2] + gap / 2 : (row ? inner.x : inner.y);
  const cross = laidAfter || last;
  marks.push({
    kind: "drop",
    box: row
      ? { x: at - 1, y: cross ? cross[1] : inner.y, width: 2, height: cross ? cross[3] : inner.height }
      : { x: inner.x, y: at - 1, width: inner.width, height: 2 },
  });
  return marks;
}

function contains(box, point) {
  return point.x >= box.x && point.x <= box.x + box.width && point.y >= box.y && point.y <= box.y + box.height;
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The image of a ?details=json&image=true answer, from its base64. */
function imageBlob(answer) {
  const text = atob(answer.image);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return new Blob([bytes], { type: answer.mediaType });
}
