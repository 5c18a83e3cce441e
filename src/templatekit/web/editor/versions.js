// Saving: a new version of the template through the template API (If-Match: the
// version it was opened at, so that two editors never overwrite each other), the list
// of versions with revert, and export and import of the JSON.

import { copy } from "./doc.js";
import { el } from "./dom.js";

export class Versions extends EventTarget {
  constructor(doc, session, parts) {
    super();
    this.doc = doc;
    this.session = session;
    this.list = parts.list;
    this.overwrite = null; // after a conflict: the version a save again replaces (only that one)
    this.saving = null; // the save on its way
    this.again = false; // whether another was asked for meanwhile
    parts.exportButton.addEventListener("click", () => this.exportJson());
    parts.importInput.addEventListener("change", () => this.importJson(parts.importInput));
  }

  say(text, failed = false) {
    this.dispatchEvent(new CustomEvent("status", { detail: { text, failed } }));
  }

  /** Opens a stored template: its current version (the ETag), as a fresh history. */
  async open(id) {
    const response = await this.session.api.call(`/templates/${encodeURIComponent(id)}/source`);
    const template = await response.json();
    this.session.templateId = id;
    this.session.version = Number((response.headers.get("ETag") || "").replaceAll('"', "")) || null;
    this.overwrite = null;
    this.doc.open(template);
    await this.refresh();
  }

  /** A new design, stored on the first save. */
  blank() {
    this.session.templateId = null;
    this.session.version = null;
    this.doc.open({ name: "Untitled", width: 1200, height: 630, background: "#ffffff", layers: [] });
    this.list.replaceChildren(el("li", { className: "muted", textContent: "Not saved yet." }));
  }

  /** Saves; a save asked for while one is on its way follows it (never two at once,
   * which would refuse each other's version). */
  async save() {
    if (this.saving) {
      this.again = true;
      return this.saving;
    }
    this.saving = this.store().finally(() => (this.saving = null));
    await this.saving;
    if (this.again) {
      this.again = false;
      if (this.doc.dirty) await this.save();
    }
  }

  async store() {
    const api = this.session.api;
    const sent = copy(this.doc.template); // what is saved: changes made meanwhile stay unsaved
    try {
      if (!this.session.templateId) {
        const created = await api.json("/templates", { method: "POST", body: sent });
        this.session.templateId = created.id;
        this.session.version = 1;
        sent.id = created.id;
        this.doc.template.id = created.id;
      } else {
        const guard = this.overwrite ?? this.session.version;
        const headers = guard ? { "If-Match": `"${guard}"` } : {};
        const path = `/templates/${encodeURIComponent(this.session.templateId)}`;
        const saved = await api.json(path, { method: "PUT", body: sent, headers });
        this.session.version = saved.version;
      }
      this.overwrite = null;
      this.doc.markSaved(sent);
      this.say(`saved: version ${this.session.version}`);
      this.dispatchEvent(new CustomEvent("stored"));
      await this.refresh();
    } catch (error) {
      if (error.code === "CONFLICT" && !this.session.local) {
        this.again = false; // a save asked for before this refusal was shown does not replace that version
        this.overwrite = await this.currentVersion();
        this.say(`Not saved: ${error.message}. Reload to see that version, or save again to replace it.`, true);
      } else {
        this.say(`not saved: ${error.message}`, true);
        if (error.problems?.length) this.dispatchEvent(new CustomEvent("problems", { detail: error.problems }));
      }
    }
  }

  /** The version stored now (its ETag), which a save after a conflict may replace. */
  async currentVersion() {
    try {
      const response = await this.session.api.call(`/templates/${encodeURIComponent(this.session.templateId)}/source`);
      return Number((response.headers.get("ETag") || "").replaceAll('"', "")) || null;
    } catch {
      return null;
    }
  }

  async refresh() {
    if (!this.session.templateId) return;
    const versions = await this.session.api.json(`/templates/${encodeURIComponent(this.session.templateId)}/versions`);
    this.list.replaceChildren(...versions.map((version) => this.row(version)));
  }

  row(version) {
    const current = version.version === this.session.version;
    const when = new Date(version.createdAt).toLocaleString();
    const label = el("span", { textContent: `v${version.version} · ${when}${version.note ? ` · ${version.note}` : ""}` });
    const item = el("li", { className: current ? "current" : "" }, label);
    if (current) item.append(el("small", { textContent: " (current)" }));
    else {
      const revert = el("button", { type: "button", textContent: "revert" });
      revert.setAttribute("aria-label", `revert to version ${version.version}`);
      revert.addEventListener("click", () => this.revert(version.version));
      item.append(" ", revert);
    }
    return item;
  }

  async revert(version) {
    if (this.doc.dirty && !confirm("Reverting drops the changes you have not saved. Revert?")) return;
    try {
      await this.session.api.json(`/templates/${encodeURIComponent(this.session.templateId)}/revert`, {
        method: "POST",
        body: { version },
      });
      await this.open(this.session.templateId);
      this.say(`reverted to version ${version}: now version ${this.session.version}`);
    } catch (error) {
      this.say(`not reverted: ${error.message}`, true);
    }
  }

  exportJson() {
    const blob = new Blob([JSON.stringify(this.doc.template, null, 2)], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: `${this.doc.template.name || "template"}.json` });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  /** Replaces the design with a JSON file's, as one change (undo brings it back). */
  async importJson(input) {
    const file = input.files[0];
    input.value = "";
    if (!file) return;
    try {
      const imported = JSON.parse(await file.text());
      if (!imported || typeof imported !== "object" || Array.isArray(imported)) throw new Error("not a template object");
      imported.layers = Array.isArray(imported.layers) ? imported.layers : [];
      this.doc.change((template) => {
        for (const key of Object.keys(template)) delete template[key];
        Object.assign(template, imported);
      });
      this.say(`imported ${file.name}`);
    } catch (error) {
      this.say(`${file.name}: ${error.message}`, true);
    }
  }
}
