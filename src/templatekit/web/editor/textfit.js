// Text that grows its box: a text layer whose type is made larger in the inspector (its
// size, its text, its font…) keeps showing all of its text, as a new text box does in
// design tools, rather than being cut with "…". Only the engine knows how tall the text
// is set, so the height comes from the render of that change (the preview's
// X-Templatekit-Text-Heights) and joins the change's own step of the history.

import { getAt } from "./doc.js";
import { locate } from "./tree.js";

/** The fields of a text layer that change how much room its text takes. */
const TYPE_FIELDS = new Set([
  "text", "spans", "markup", "format", "font", "weight", "italic", "size", "lineHeight", "letterSpacing",
  "transform", "padding", "autoFit", "maxLines",
]);

export class TextFit {
  constructor(doc) {
    this.doc = doc;
    this.edited = null; // {name, key}: the text layer whose type the latest change set
    // any other change (a drag, an undo) is not one to grow a box after
    doc.addEventListener("change", ({ detail }) => detail.source !== "inspector" && (this.edited = null));
  }

  /** Called for each change made in the inspector at ``path`` (undo step ``key``). */
  changed(path, key) {
    this.edited = null;
    for (let end = path.length - 1; end > 0; end--) {
      const layer = getAt(this.doc.template, path.slice(0, end));
      if (layer && typeof layer === "object" && !Array.isArray(layer) && "type" in layer) {
        if (layer.type === "text" && TYPE_FIELDS.has(path[end])) this.edited = { name: layer.name, key };
        return;
      }
    }
  }

  /** The render of the latest change is shown: the edited layer's box grows to the
   * height its text needs, when the text is cut and the box has a height of its own.
   * Returns the path of the height it set (null: none). */
  rendered(heights) {
    const edited = this.edited;
    this.edited = null;
    const needed = edited && heights[edited.name];
    const entry = needed && this.doc.locate(edited.name);
    if (!entry || typeof entry.layer.height !== "number" || needed <= entry.layer.height) return null;
    this.doc.change((template) => (locate(template, edited.name).layer.height = needed), {
      key: edited.key,
      within: Infinity,
      source: "inspector", // the inspector's fields stay as they are: one may be being typed in
    });
    return [...entry.path, "height"];
  }
}
