// The canvas: the engine's own render of the template (so it shows the exact output),
// refreshed as the design changes (at the size shown while dragging, full size when still),
// under an overlay of the layers' boxes to select, move, resize and rotate them.

import { el, round } from "./dom.js";
import { bounds, linesOf, snapAxis, targets } from "./snap.js";

const HANDLES = { nw: [-1, -1], n: [0, -1], ne: [1, -1], e: [1, 0], se: [1, 1], s: [0, 1], sw: [-1, 1], w: [-1, 0] };
const SNAP_PX = 6; // screen pixels
const MIN_SIZE = 1;

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
      const response = await this.api.call("/templates/preview", { method: "POST", body });
      await this.show(await response.blob(), kind, changedAt, response);
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

  async show(blob, kind, changedAt, response) {
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
    const scans = response.headers.get("X-Templatekit-Scans");
    const warnings = response.headers.get("X-Templatekit-Warnings");
    this.dispatchEvent(new CustomEvent("rendered", {
      detail: { kind, scans: scans ? JSON.parse(scans) : null, warnings: warnings ? JSON.parse(warnings) : [] },
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

  drawOverlay(guides = []) {
    const template = this.doc.template;
    if (!template) return;
    const boxes = template.layers.map((layer) => {
      const box = this.placed(el("div", { className: "box", title: layer.name }), layer);
      box.dataset.name = layer.name;
      box.classList.toggle("selected", this.doc.selection.has(layer.name));
      box.classList.toggle("hidden-layer", layer.visible === false);
      box.classList.toggle("locked", Boolean(layer.locked));
      return box;
    });
    const lines = guides.map(({ axis, at }) => {
      const line = el("div", { className: `guide ${axis}` });
      if (axis === "x") line.style.left = `${at * this.zoom}px`;
      else line.style.top = `${at * this.zoom}px`;
      return line;
    });
    this.overlay.replaceChildren(...boxes, ...this.frame(), ...lines);
  }

  /** ``node`` over ``layer``'s box, rotated with it. */
  placed(node, layer) {
    const z = this.zoom;
    Object.assign(node.style, {
      left: `${layer.x * z}px`,
      top: `${layer.y * z}px`,
      width: `${layer.width * z}px`,
      height: `${layer.height * z}px`,
      transform: layer.rotation ? `rotate(${layer.rotation}deg)` : "",
    });
    return node;
  }

  /** The handles of a single selected layer, above every box so that none hides them. */
  frame() {
    const [layer] = this.doc.selected();
    if (this.doc.selection.size !== 1 || !layer || layer.locked) return [];
    const frame = this.placed(el("div", { className: "frame" }), layer);
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
      drag.end?.(e);
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
    const found = targets(this.doc.template, moving);
    const sx = snapAxis(xLines, found.x, this.grid, this.threshold());
    const sy = snapAxis(yLines, found.y, this.grid, this.threshold());
    const guides = [];
    if (sx.at !== null) guides.push({ axis: "x", at: sx.at });
    if (sy.at !== null) guides.push({ axis: "y", at: sy.at });
    return { dx: sx.at !== null ? sx.shift : 0, dy: sy.at !== null ? sy.shift : 0, guides };
  }

  moving(start) {
    const layers = this.doc.selected().filter((layer) => !layer.locked);
    if (!layers.length) return null;
    const origin = new Map(layers.map((layer) => [layer.name, { x: layer.x, y: layer.y }]));
    const all = layers.map(bounds);
    const left = Math.min(...all.map((b) => b.x));
    const top = Math.min(...all.map((b) => b.y));
    const width = Math.max(...all.map((b) => b.x + b.width)) - left;
    const height = Math.max(...all.map((b) => b.y + b.height)) - top;
    const key = `move ${performance.now()}`;
    const drag = { changed: false };
    drag.move = (point, event) => {
      let dx = Math.round(point.x - start.x);
      let dy = Math.round(point.y - start.y);
      if (!drag.changed && !dx && !dy) return; // a click's jitter is not a move
      const snapped = this.snap(linesOf(left + dx, width), linesOf(top + dy, height), origin, event);
      dx += snapped.dx;
      dy += snapped.dy;
      drag.changed = true;
      this.doc.change((template) => {
        for (const layer of template.layers) {
          const from = origin.get(layer.name);
          if (from) Object.assign(layer, { x: round(from.x + dx), y: round(from.y + dy) });
        }
      }, { key, within: Infinity });
      this.drawOverlay(snapped.guides);
    };
    return drag;
  }

  resizing(name, [sx, sy], start) {
    const layer = this.doc.layer(name);
    const { x, y, width: w0, height: h0 } = layer;
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
        const edgeX = sx > 0 ? x + w0 + lx : x + lx;
        const edgeY = sy > 0 ? y + h0 + ly : y + ly;
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
        Object.assign(template.layers.find((l) => l.name === name), {
          x: round(c.x - w / 2),
          y: round(c.y - h / 2),
          width: w,
          height: h,
        });
      }, { key, within: Infinity });
      this.drawOverlay(guides);
    };
    return drag;
  }

  rotation(name) {
    const layer = this.doc.layer(name);
    const centre = { x: layer.x + layer.width / 2, y: layer.y + layer.height / 2 };
    const key = `rotate ${performance.now()}`;
    const drag = { changed: false };
    drag.move = (point, event) => {
      let degrees = (Math.atan2(point.y - centre.y, point.x - centre.x) * 180) / Math.PI + 90;
      if (event.shiftKey) degrees = Math.round(degrees / 15) * 15;
      degrees = ((Math.round(degrees * 10) / 10 + 540) % 360) - 180;
      drag.changed = true;
      this.doc.change((template) => {
        template.layers.find((l) => l.name === name).rotation = degrees;
      }, { key, within: Infinity });
    };
    return drag;
  }

  marquee(start, adding) {
    const band = el("div", { className: "marquee" });
    this.overlay.append(band);
    const before = adding ? [...this.doc.selection] : [];
    const drag = { changed: false };
    drag.move = (point) => {
      const box = {
        x: Math.min(start.x, point.x),
        y: Math.min(start.y, point.y),
        width: Math.abs(point.x - start.x),
        height: Math.abs(point.y - start.y),
      };
      Object.assign(band.style, {
        left: `${box.x * this.zoom}px`,
        top: `${box.y * this.zoom}px`,
        width: `${box.width * this.zoom}px`,
        height: `${box.height * this.zoom}px`,
      });
      const inside = this.doc.layers.filter((layer) => !layer.locked && overlaps(bounds(layer), box));
      this.doc.selection = new Set([...before, ...inside.map((layer) => layer.name)]);
      this.doc.emit("select");
      this.overlay.append(band);
    };
    drag.end = () => band.remove();
    return drag;
  }

  /** Arrow keys: 1 px, 10 px with shift. */
  nudge(dx, dy) {
    const names = new Set(this.doc.selected().filter((layer) => !layer.locked).map((layer) => layer.name));
    if (!names.size) return;
    this.doc.change((template) => {
      for (const layer of template.layers) {
        if (names.has(layer.name)) Object.assign(layer, { x: round(layer.x + dx), y: round(layer.y + dy) });
      }
    }, { key: "nudge" });
  }
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
