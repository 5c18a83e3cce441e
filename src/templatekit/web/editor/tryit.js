// Try it: sample modifications rendered through /v1 as clients render the saved
// template (PNG, PDF, video), and the same request as curl, Python or a signed URL.

import { curlCode, pythonCode, renderVideoStreamed, signedUrl, warningsOf } from "../common/api.js";
import { el } from "./dom.js";

export class TryIt {
  constructor(doc, schema, session, parts) {
    this.doc = doc;
    this.schema = schema;
    this.session = session;
    this.parts = parts;
    parts.sample.addEventListener("click", () => this.fillSample());
    parts.png.addEventListener("click", () => this.image());
    parts.pdf.addEventListener("click", () => this.pdf());
    parts.video.addEventListener("click", () => this.video());
    parts.sign.addEventListener("click", () => this.sign());
    this.written = false; // whether the modifications are the user's (else the sample, kept up to date)
    parts.modifications.addEventListener("input", () => {
      this.written = parts.modifications.value.trim() !== "";
      this.showCode();
    });
    parts.format.addEventListener("change", () => this.showCode());
  }

  /** Each layer's main field at its designed value: the modifications to start from. */
  sample() {
    const kinds = this.schema.kinds;
    return this.doc.all()
      .map((layer) => [layer, kinds[layer.type]?.["x-main-field"]])
      .filter(([layer, main]) => main && layer[main] !== undefined && !String(layer[main]).startsWith("data:"))
      .map(([layer, main]) => ({ name: layer.name, [main]: layer[main] }));
  }

  fillSample() {
    this.parts.modifications.value = JSON.stringify(this.sample(), null, 2);
    this.written = false;
    this.showCode();
  }

  /** Another template is open: its sample replaces what was written for the last one. */
  opened() {
    this.written = false;
    this.draw();
  }

  draw() {
    const saved = Boolean(this.session.templateId);
    const video = Boolean(this.doc.template?.video);
    this.parts.videoBox.hidden = !video || this.session.local;
    this.parts.signedBox.hidden = this.session.local;
    for (const button of [this.parts.png, this.parts.pdf, this.parts.video, this.parts.sign]) button.disabled = !saved;
    this.parts.note.textContent = !saved
      ? "Save the template first: these render the saved version, as clients will."
      : this.doc.dirty
        ? "These render the saved version: save to try your latest changes."
        : "";
    if (this.written) this.showCode();
    else this.fillSample(); // the design's current values, until the user writes their own
  }

  modifications() {
    const text = this.parts.modifications.value.trim();
    if (!text) return [];
    try {
      const parsed = JSON.parse(text);
      this.parts.modifications.setCustomValidity("");
      return parsed;
    } catch (error) {
      this.parts.modifications.setCustomValidity(`not JSON: ${error.message}`);
      this.parts.modifications.reportValidity();
      throw error;
    }
  }

  body(extra = {}) {
    const body = { templateId: this.session.templateId, ...extra };
    const modifications = this.modifications();
    if (modifications.length) body.modifications = modifications;
    return body;
  }

  showCode() {
    if (!this.session.templateId || this.session.local) {
      this.parts.curl.textContent = this.parts.python.textContent = this.session.local
        ? "templatekit render <file> -m modifications.json -o out.png"
        : "(save the template first)";
      return;
    }
    let body;
    try {
      body = this.body({ format: this.parts.format.value });
    } catch {
      return;
    }
    const output = `out.${body.format}`;
    this.parts.curl.textContent = curlCode(this.session.api.base, "createImage", body, output);
    this.parts.python.textContent = pythonCode(this.session.api.base, "createImage", body, output);
  }

  say(text) {
    this.parts.status.textContent = text;
  }

  async image() {
    try {
      const response = await this.session.api.call("/templates/createImage", {
        method: "POST",
        body: this.body({ format: this.parts.format.value }),
      });
      const blob = await response.blob();
      this.parts.result.replaceChildren(el("img", { src: URL.createObjectURL(blob), alt: "render" }));
      const warnings = warningsOf(response);
      this.say(`${Math.round(blob.size / 1024)} KB${warnings.length ? ` · ${warnings.join("; ")}` : ""}`);
    } catch (error) {
      this.say(error.message);
    }
  }

  async pdf() {
    try {
      const response = await this.session.api.call("/templates/createPdf", { method: "POST", body: this.body() });
      const url = URL.createObjectURL(await response.blob());
      // downloaded, not opened: a PDF opened from this page would take its
      // Content-Security-Policy, under which a browser's PDF viewer may not run
      const name = `${this.doc.template.name || "template"}.pdf`;
      this.parts.result.replaceChildren(el("a", { href: url, download: name, textContent: `Download ${name}` }));
      this.say("PDF ready");
    } catch (error) {
      this.say(error.message);
    }
  }

  async video() {
    const progress = el("progress", { max: 1, value: 0 });
    this.parts.result.replaceChildren(progress);
    const format = this.parts.videoFormat.value;
    try {
      const url = await renderVideoStreamed(this.session.api, this.body({ format }), (text, done) => {
        this.say(text);
        progress.value = done;
      });
      // GIF and WebP are animated images; MP4 and WebM play in a video element
      const shown = ["gif", "webp"].includes(format)
        ? el("img", { src: url, alt: `the video as ${format.toUpperCase()}` })
        : el("video", { src: url, controls: true, loop: true });
      this.parts.result.replaceChildren(shown);
    } catch (error) {
      this.say(error.message);
    }
  }

  async sign() {
    try {
      const url = await signedUrl(this.session.api.base, this.session.api.key, {
        templateId: this.session.templateId,
        format: this.parts.format.value,
        modifications: this.modifications(),
        expiresIn: this.parts.expires.value,
      });
      this.parts.signed.textContent = url;
    } catch (error) {
      this.say(error.message);
    }
  }
}
