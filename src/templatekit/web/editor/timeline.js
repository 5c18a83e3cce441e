// The timeline of a video template: each layer's time on screen as a bar to drag (its
// body moves the start, its edges the start or the end), its animation presets, the cues
// of captions layers (as the last render read them, from their file or their cues), and
// a scrubber that shows the frame at a moment on the canvas.

import { el, round } from "./dom.js";
import { listed, locate } from "./tree.js";

export class Timeline {
  constructor(doc, canvas, parts) {
    this.doc = doc;
    this.canvas = canvas;
    this.box = parts.box;
    this.rows = parts.rows;
    this.scrub = parts.scrub;
    this.moment = parts.moment;
    this.atRest = parts.atRest;
    this.cues = {}; // captions layer name -> [[start, end, text], …], from the last full render
    this.scrub.addEventListener("input", () => this.showMoment(Number(this.scrub.value), "quick"));
    this.scrub.addEventListener("change", () => this.showMoment(Number(this.scrub.value), "full"));
    this.atRest.addEventListener("click", () => {
      this.canvas.time = null;
      this.moment.textContent = "at rest";
      this.canvas.refresh("full");
      this.draw();
    });
  }

  get video() {
    return this.doc.template?.video;
  }

  showMoment(time, kind) {
    this.canvas.time = time;
    this.moment.textContent = `${time.toFixed(2)} s`;
    this.canvas.refresh(kind);
    this.draw();
  }

  draw() {
    const video = this.video;
    this.box.hidden = !video;
    if (!video) {
      this.canvas.time = null;
      return;
    }
    const fps = video.fps || 30;
    Object.assign(this.scrub, { min: 0, max: video.duration, step: 1 / fps });
    if (this.canvas.time !== null && this.canvas.time > video.duration) this.canvas.time = video.duration;
    this.rows.replaceChildren(...listed(this.doc.layers).map(({ layer }) => this.row(layer, video))); // as the layers panel
  }

  row(layer, video) {
    const total = video.duration;
    const start = Math.min(layer.start ?? 0, total);
    const end = Math.min(layer.duration !== undefined && layer.duration !== null ? start + layer.duration : total, total);
    const bar = el("div", { className: "bar", title: `${start.toFixed(2)}–${end.toFixed(2)} s` });
    bar.setAttribute("aria-label", `${layer.name} on screen ${start.toFixed(2)} to ${end.toFixed(2)} seconds`);
    Object.assign(bar.style, { left: `${(start / total) * 100}%`, width: `${((end - start) / total) * 100}%` });
    const presets = (layer.animations || []).map((animation) => animation.preset || `${animation.property} keyframes`);
    bar.append(
      el("span", { className: "edge start" }),
      el("span", { className: "presets", textContent: presets.join(" · ") }),
      el("span", { className: "edge end" }),
    );
    const track = el("div", { className: "track" }, bar, ...this.cueMarks(layer.name, total));
    if (this.canvas.time !== null) {
      const playhead = el("div", { className: "playhead" });
      playhead.style.left = `${(this.canvas.time / total) * 100}%`;
      track.append(playhead);
    }
    bar.addEventListener("pointerdown", (event) => this.drag(event, layer.name, track, { start, end, total, fps: video.fps || 30, toEnd: layer.duration == null }));
    const label = el("button", { type: "button", className: "row-name", textContent: layer.name });
    label.addEventListener("click", () => this.doc.select([layer.name]));
    const row = el("div", { className: "timeline-row" }, label, track);
    row.classList.toggle("selected", this.doc.selection.has(layer.name));
    return row;
  }

  /** A captions layer's cues on its track: each a mark from its start to its end,
   * its text as the title; a click shows the cue's first moment. */
  cueMarks(name, total) {
    return (this.cues[name] || []).map(([start, end, text]) => {
      const mark = el("div", { className: "cue", title: `${start.toFixed(2)}–${end.toFixed(2)} s: ${text}` });
      mark.setAttribute("aria-label", `cue ${start.toFixed(2)} to ${end.toFixed(2)} seconds: ${text}`);
      Object.assign(mark.style, { left: `${(start / total) * 100}%`, width: `${((Math.min(end, total) - start) / total) * 100}%` });
      mark.addEventListener("pointerdown", (event) => event.stopPropagation()); // not a drag of the layer's bar
      mark.addEventListener("click", () => {
        this.scrub.value = String(start);
        this.showMoment(start, "full");
      });
      return mark;
    });
  }

  drag(event, name, track, { start, end, total, fps, toEnd }) {
    event.preventDefault();
    const part = event.target.classList.contains("start") ? "start" : event.target.classList.contains("end") ? "end" : "body";
    const width = track.getBoundingClientRect().width;
    const frame = 1 / fps;
    const snap = (t) => Math.round(t * fps) / fps;
    const key = `timing ${performance.now()}`;
    // on the window: each change draws the bars anew, and a removed bar gets no events
    const move = (e) => {
      const dt = ((e.clientX - event.clientX) / width) * total;
      let newStart = start;
      let newEnd = end;
      if (part === "body" && toEnd) {
        newStart = Math.max(0, Math.min(total - frame, snap(start + dt))); // it stays on to the end
      } else if (part === "body") {
        newStart = Math.max(0, Math.min(total - (end - start), snap(start + dt)));
        newEnd = newStart + (end - start);
      } else if (part === "start") {
        newStart = Math.max(0, Math.min(end - frame, snap(start + dt)));
      } else {
        newEnd = Math.max(start + frame, Math.min(total, snap(end + dt)));
      }
      this.doc.change((template) => {
        const layer = locate(template, name).layer;
        if (newStart > 0) layer.start = round(newStart, 3);
        else delete layer.start;
        // a layer without a duration stays on to the end unless its end is dragged
        if (part === "end" || (part === "start" && layer.duration != null)) layer.duration = round(newEnd - newStart, 3);
      }, { key, within: Infinity });
    };
    const up = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      this.doc.settle();
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }
}
