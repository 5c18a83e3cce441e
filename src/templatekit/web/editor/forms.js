// Form controls made from the template format's schema: the control follows the type
// (and ``x-control`` where a type does not say), so that a field added to the model
// appears here without new code. ``set(value, structural)`` changes the field; undefined
// removes it (back to its default); ``structural`` asks for the form to be drawn again
// (rows added or removed, another kind of value, a reset), which typing never does, so
// that the field being typed in keeps its focus.

import { pathText } from "./doc.js";
import { el } from "./dom.js";

/** Uploads larger than this (as a data URI) get a note: each preview sends them again. */
const LARGE_UPLOAD = 1_000_000;


/** Label text of a JSON name: "verticalAlign" -> "vertical align". */
export const labelOf = (name) => String(name).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

// A canvas context reads any CSS colour the format allows back as "#rrggbb" or "rgba()".
const probe = document.createElement("canvas").getContext("2d");

export function splitColor(value) {
  probe.fillStyle = "#000000";
  probe.fillStyle = String(value ?? "#000000");
  const normal = probe.fillStyle;
  if (normal.startsWith("#")) return { hex: normal, alpha: 1 };
  const [r, g, b, a] = normal.match(/[\d.]+/g).map(Number);
  const hex = (n) => n.toString(16).padStart(2, "0");
  return { hex: `#${hex(r)}${hex(g)}${hex(b)}`, alpha: a };
}

function joinColor(hex, alpha) {
  if (alpha >= 1) return hex;
  return hex + Math.round(alpha * 255).toString(16).padStart(2, "0");
}

export class Forms {
  /** ``fonts()``: the families to offer (bundled and the template's own);
   * ``measured(path)``: the size last laid out of the width or height at ``path``;
   * ``upload(file)``: the file uploaded as an asset, resolving to its ``{src}``. */
  constructor(schema, fonts, measured = () => undefined, upload = null) {
    this.schema = schema;
    this.fonts = fonts;
    this.measured = measured;
    this.upload = upload;
    this.expanded = new Set(); // the paths of nested grids shown open
    this.chosen = new Map(); // path -> the kind of value chosen there (an empty list fits any)
  }

  /** One labelled field: its control, a reset button when it may be unset, and a place
   * for the model's message about it (``data-path`` finds it). */
  field(name, schema, value, path, set, { required = false } = {}) {
    const resolved = this.schema.resolve(schema);
    const wrap = el("div", { className: "field" });
    wrap.dataset.path = pathText(path);
    const label = el("label", { className: "field-label", textContent: labelOf(name) });
    if (resolved.description) label.title = resolved.description;
    const control = this.control(resolved, value, path, set, labelOf(name));
    wrap.append(label, control);
    if (!required && value !== undefined) {
      const reset = el("button", { type: "button", className: "reset", textContent: "×", title: `reset ${labelOf(name)}` });
      reset.setAttribute("aria-label", `reset ${labelOf(name)}`);
      reset.addEventListener("click", () => set(undefined, true));
      label.append(reset);
    }
    wrap.append(el("p", { className: "problem", hidden: true }));
    return wrap;
  }

  control(schema, value, path, set, name) {
    if (schema["x-control"] === "size") return this.size(value, path, set, name);
    const { options, nullable } = this.schema.options(schema);
    // "none" is offered where it is the value: set to null, or unset without a default
    const none = value === null || (value === undefined && (schema.default === undefined || schema.default === null));
    if (options.length > 1 || (nullable && (options[0].type === "object" || none))) {
      return this.choice(options, nullable, value, path, set, name);
    }
    const one = options[0];
    const shown = value ?? (schema.default !== undefined ? schema.default : undefined);
    const control = one["x-control"];
    if (control === "color") return this.color(shown, set, name);
    if (control === "font") return this.font(value, schema.default, set, name);
    if (control === "source") return this.source(value, set, name);
    if (control === "text") return this.text(one, value, schema.default, set, name);
    if (one.enum) return this.enumeration(one.enum, shown, set, name);
    if (one.const !== undefined) return el("code", { textContent: String(one.const) });
    switch (one.type) {
      case "boolean":
        return this.checkbox(Boolean(shown), set, name);
      case "number":
      case "integer":
        return this.number(one, value, schema.default, set, name);
      case "string":
        return this.text(one, value, schema.default, set, name);
      case "array":
        return this.array(one, value ?? [], path, set, name);
      case "object":
        if (one.properties) return this.object(one, value ?? {}, path, set);
        return this.json(value, set, name);
      default:
        return this.json(value, set, name);
    }
  }

  named(input, name) {
    input.setAttribute("aria-label", name);
    return input;
  }

  checkbox(checked, set, name) {
    const input = this.named(el("input", { type: "checkbox", checked }), name);
    input.addEventListener("change", () => set(input.checked));
    return input;
  }

  number(schema, value, fallback, set, name) {
    const input = this.named(el("input", { type: "number", value: value ?? "", placeholder: fallback ?? "" }), name);
    if (schema.minimum !== undefined) input.min = schema.minimum;
    if (schema.maximum !== undefined) input.max = schema.maximum;
    input.step = schema["x-step"] ?? (schema.type === "integer" ? 1 : "any");
    input.addEventListener("input", () => {
      if (input.value === "") return set(undefined);
      const number = Number(input.value);
      if (!Number.isNaN(number)) set(schema.type === "integer" ? Math.round(number) : number);
    });
    return input;
  }

  text(schema, value, fallback, set, name) {
    const long = (schema.maxLength ?? 0) >= 1000;
    const input = this.named(el(long ? "textarea" : "input", { value: value ?? "", placeholder: fallback ?? "" }), name);
    if (long) input.rows = Math.min(6, Math.max(2, String(value ?? "").split("\n").length));
    input.addEventListener("input", () => set(input.value === "" && fallback !== undefined ? undefined : input.value));
    return input;
  }

  /** Few options: toggle buttons (alignments); more: a list. */
  enumeration(options, value, set, name) {
    if (options.length <= 4 && options.every((option) => String(option).length <= 8)) {
      const group = el("div", { className: "toggles", role: "radiogroup" });
      group.setAttribute("aria-label", name);
      for (const option of options) {
        const button = el("button", { type: "button", textContent: String(option) });
        button.setAttribute("role", "radio");
        button.setAttribute("aria-checked", String(option === value));
        button.addEventListener("click", () => set(option, true));
        group.append(button);
      }
      return group;
    }
    const select = this.named(el("select"), name);
    select.append(...options.map((option) => new Option(String(option), String(option), false, option === value)));
    if (value === undefined) select.selectedIndex = -1;
    select.addEventListener("change", () => set(options[select.selectedIndex]));
    return select;
  }

  /** A colour picker with its alpha, and the colour as text (any CSS form). */
  color(value, set, name) {
    const { hex, alpha } = splitColor(value);
    const picker = this.named(el("input", { type: "color", value: hex }), name);
    const opacity = this.named(el("input", { type: "range", min: 0, max: 1, step: 0.01, value: alpha }), `${name} alpha`);
    const text = this.named(el("input", { value: value ?? "", className: "color-text", placeholder: hex }), `${name} text`);
    const fromPicker = () => {
      text.value = joinColor(picker.value, Number(opacity.value));
      set(text.value);
    };
    picker.addEventListener("input", fromPicker);
    opacity.addEventListener("input", fromPicker);
    text.addEventListener("change", () => {
      const typed = splitColor(text.value || value);
      picker.value = typed.hex; // the picker and its alpha show the colour typed
      opacity.value = typed.alpha;
      set(text.value || undefined);
    });
    return el("div", { className: "color" }, picker, opacity, text);
  }

  font(value, fallback, set, name) {
    const list = el("datalist", { id: `fonts-${Math.random().toString(36).slice(2)}` });
    list.append(...this.fonts().map((family) => new Option(family)));
    const input = this.named(el("input", { value: value ?? "", placeholder: fallback ?? "" }), name);
    input.setAttribute("list", list.id);
    input.addEventListener("change", () => set(input.value || undefined));
    return el("div", { className: "font" }, input, list);
  }

  /** A width or height: a number of px, or what a frame works out ("hug" its content,
   * "fill" the space left); back to a number, it starts at the size last laid out. */
  size(value, path, set, name) {
    const mode = typeof value === "string" ? value : "fixed";
    const input = this.named(el("input", { type: "number", min: 0, step: "any", value: typeof value === "number" ? value : "" }), name);
    input.disabled = mode !== "fixed";
    if (mode !== "fixed") input.placeholder = String(Math.round(this.measured(path) ?? 0) || mode);
    input.addEventListener("input", () => {
      const number = Number(input.value);
      if (input.value !== "" && number > 0) set(number);
    });
    const select = this.named(el("select", { className: "sizing" }), `${name} sizing`);
    select.title = "fixed: a number of px; hug: the content's own size; fill: the room left in a row or column frame";
    select.append(...["fixed", "hug", "fill"].map((option) => new Option(option, option, false, option === mode)));
    select.addEventListener("change", () => {
      set(select.value === "fixed" ? Math.round(this.measured(path) ?? 100) : select.value, true);
    });
    return el("div", { className: "size" }, input, select);
  }

  /** An image (or other file) by URL, or uploaded into the template as a data URI. */
  source(value, set, name) {
    const isData = typeof value === "string" && value.startsWith("data:");
    const url = this.named(el("input", { value: isData ? "" : value ?? "", placeholder: isData ? "(a file in the template)" : "https://… or asset:…" }), name);
    url.addEventListener("change", () => set(url.value || undefined));
    const file = this.named(el("input", { type: "file" }), `${name} file`);
    const note = el("p", { className: "note", hidden: true });
    note.setAttribute("role", "status");
    file.addEventListener("change", async () => {
      const chosen = file.files[0];
      if (!chosen) return;
      if (!this.upload) {
        // no server to keep it: the file goes into the template as a data URI
        const reader = new FileReader();
        reader.onload = () => set(reader.result, true);
        reader.readAsDataURL(chosen);
        return;
      }
      Object.assign(note, { hidden: false, textContent: `uploading ${chosen.name}…` });
      try {
        const asset = await this.upload(chosen);
        set(asset.src, true);
      } catch (error) {
        note.textContent = `not uploaded: ${error.message}`;
      }
    });
    const box = el("div", { className: "source" }, url, el("label", { className: "upload" }, "upload ", file), note);
    if (isData && value.length > LARGE_UPLOAD) {
      const size = (value.length * 0.75) / 1e6;
      box.append(el("p", { className: "note", textContent: `${size.toFixed(1)} MB in the template: every preview sends it; a URL is quicker.` }));
    }
    return box;
  }

  /** anyOf: which kind of value (a colour, a gradient, none…), then its control. */
  choice(options, nullable, value, path, set, name) {
    const names = options.map((option) => this.optionName(option));
    const key = pathText(path);
    const remembered = this.chosen.get(key);
    const empty = Array.isArray(value) && !value.length; // fits every kind of list: the one chosen last
    const current = value === undefined || value === null ? -1
      : empty && remembered !== undefined ? remembered
        : options.findIndex((option) => this.fits(option, value));
    const select = this.named(el("select", { className: "variant" }), `${name} kind`);
    if (nullable || current === -1) select.append(new Option(nullable ? "none" : "—", "-1"));
    names.forEach((label, index) => select.append(new Option(label, String(index))));
    select.value = String(current);
    const box = el("div", { className: "choice" }, select);
    select.addEventListener("change", () => {
      const index = Number(select.value);
      this.chosen.set(key, index);
      set(index < 0 ? (nullable ? null : undefined) : this.schema.initial(options[index]), true);
    });
    if (current >= 0) box.append(this.control(options[current], value, path, set, name));
    return box;
  }

  optionName(option) {
    if (option["x-control"]) return option["x-control"];
    if (option.title) return labelOf(option.title);
    if (option.type === "array") return `list of ${this.optionName(this.schema.resolve(option.items))}`;
    if (option.properties) return labelOf(Object.keys(option.properties).join("/")).slice(0, 30);
    return option.type || "value";
  }

  fits(option, value) {
    if (option.type === "array") {
      if (!Array.isArray(value)) return false;
      const item = this.schema.resolve(option.items);
      return !value.length || !item.properties || Object.keys(value[0]).every((key) => key in item.properties);
    }
    if (option.type === "object" || option.properties) {
      return value !== null && typeof value === "object" && !Array.isArray(value);
    }
    if (option.type === "number" || option.type === "integer") return typeof value === "number";
    if (option.type === "string") return typeof value === "string";
    if (option.type === "boolean") return typeof value === "boolean";
    return true;
  }

  /** An object's fields, each its own control. */
  object(schema, value, path, set) {
    const box = el("div", { className: "object" });
    const required = new Set(schema.required || []);
    for (const [name, property] of Object.entries(schema.properties)) {
      const setField = (fieldValue, structural) => {
        const next = { ...value };
        if (fieldValue === undefined) delete next[name];
        else next[name] = fieldValue;
        value = next; // the next change of another field starts from this one
        set(next, structural);
      };
      box.append(this.field(name, property, value[name], [...path, name], setField, { required: required.has(name) }));
    }
    return box;
  }

  /** Lists: rows of objects as a grid (tables, charts, key-values), others item by item. */
  array(schema, value, path, set, name) {
    const item = this.schema.resolve(schema.items);
    if (item.type === "object" && (item.properties || item.additionalProperties)) {
      return this.grid(item, value, path, set, name);
    }
    const box = el("div", { className: "list" });
    value.forEach((entry, index) => {
      const setItem = (itemValue, structural) => {
        const next = [...value];
        if (itemValue === undefined) next.splice(index, 1);
        else next[index] = itemValue;
        value = next;
        set(next, structural || itemValue === undefined);
      };
      box.append(this.field(`${name} ${index + 1}`, schema.items, entry, [...path, index], setItem));
    });
    const add = el("button", { type: "button", textContent: `add ${name}` });
    add.addEventListener("click", () => set([...value, this.schema.initial(schema.items)], true));
    box.append(add);
    return box;
  }

  /** A grid: a row per item, a column per field (values of their own shape as JSON). */
  grid(item, rows, path, set, name) {
    const fixed = item.properties ? Object.keys(item.properties) : [];
    const free = item.properties ? [] : [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const columns = [...fixed, ...free];
    const table = el("table", { className: "grid" });
    table.setAttribute("aria-label", name);
    const head = el("tr");
    head.append(...columns.map((column) => el("th", { textContent: labelOf(column), title: column })), el("th"));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    rows.forEach((row, index) => {
      const tr = el("tr");
      tr.dataset.path = pathText([...path, index]);
      for (const column of columns) {
        const property = item.properties ? this.schema.resolve(item.properties[column]) : this.schema.resolve(item.additionalProperties);
        const setCell = (cell, structural) => {
          const next = rows.map((r) => ({ ...r }));
          if (cell === undefined) delete next[index][column];
          else next[index][column] = cell;
          rows = next; // the next change of another cell starts from this one
          set(next, structural);
        };
        const label = `${name} ${index + 1} ${column}`;
        const nested = this.nestedRows(property);
        tr.append(el("td", {}, nested
          ? this.expander(nested, row[column] ?? [], [...path, index, column], setCell, label, tr)
          : this.cell(property, row[column], setCell, label)));
      }
      const remove = el("button", { type: "button", textContent: "×", title: "remove this row" });
      remove.addEventListener("click", () => set(rows.filter((_, i) => i !== index), true));
      tr.append(el("td", {}, remove));
      body.append(tr);
    });
    table.append(body);
    const add = el("button", { type: "button", textContent: "add a row" });
    add.addEventListener("click", () => {
      const blank = item.properties ? this.schema.initial(item) : Object.fromEntries(columns.map((c) => [c, ""]));
      set([...rows, blank], true);
    });
    const actions = el("div", { className: "grid-actions" }, add);
    if (!item.properties) {
      const column = el("button", { type: "button", textContent: "add a column" });
      column.addEventListener("click", () => {
        const key = prompt("Column key");
        if (key) set(rows.length ? rows.map((row) => ({ ...row, [key]: row[key] ?? "" })) : [{ [key]: "" }], true);
      });
      actions.append(column);
    }
    return el("div", { className: "grid-box" }, table, actions);
  }

  /** The item schema of a cell that holds rows of its own (a chart series' points). */
  nestedRows(property) {
    const { options } = this.schema.options(property);
    if (options.length !== 1 || options[0].type !== "array") return null;
    const item = this.schema.resolve(options[0].items);
    return item.type === "object" && item.properties ? item : null;
  }

  /** A button that shows a cell's own rows as a grid under its row (kept open when the
   * form is drawn again). */
  expander(item, rows, path, set, name, tr) {
    const key = pathText(path);
    const button = el("button", { type: "button", className: "expander" });
    button.setAttribute("aria-label", `edit ${name}`);
    const show = (open) => {
      button.textContent = `${rows.length} ${open ? "▴" : "▾"}`;
      button.setAttribute("aria-expanded", String(open));
      const shown = tr.nextElementSibling;
      if (shown?.classList.contains("nested") && shown.dataset.for === key) shown.remove();
      if (!open) return;
      const cell = el("td", { colSpan: tr.children.length }, this.grid(item, rows, path, set, name));
      const nested = el("tr", { className: "nested" }, cell);
      nested.dataset.for = key;
      tr.after(nested);
    };
    button.addEventListener("click", () => {
      const open = !this.expanded.has(key);
      if (open) this.expanded.add(key);
      else this.expanded.delete(key);
      show(open);
    });
    if (this.expanded.has(key)) queueMicrotask(() => show(true)); // once the row is in its table
    else show(false);
    return button;
  }

  /** A grid cell: a list of options, or plain values in a text box (numbers kept
   * numbers); values of their own shape as JSON. */
  cell(property, value, set, name) {
    const { options, nullable } = this.schema.options(property);
    const [one] = options;
    if (options.length === 1 && one["x-control"] === "source") return this.source(value, set, name);
    if (options.length === 1 && one.enum) {
      const select = this.named(el("select"), name);
      select.append(new Option("", ""), ...one.enum.map((option) => new Option(String(option), String(option))));
      select.value = value === undefined || value === null ? "" : String(value);
      select.addEventListener("change", () => set(select.value === "" ? undefined : one.enum[select.selectedIndex - 1]));
      return select;
    }
    const types = [].concat(...options.map((option) => option.type ?? []));
    const plain = options.length === 1 || types.length === options.length;
    const scalar = types.some((type) => ["string", "number", "integer"].includes(type));
    if (!plain || !scalar || (value !== null && typeof value === "object")) return this.json(value, set, name, 1);
    const numeric = !types.includes("string") || typeof value === "number";
    const input = this.named(el("input", { value: value ?? "" }), name);
    input.addEventListener("input", () => {
      const text = input.value;
      if (text === "") set(types.includes("string") && !nullable ? "" : undefined);
      else set(numeric && !Number.isNaN(Number(text)) ? Number(text) : text);
    });
    return input;
  }

  /** Anything else, as JSON text: applied when it parses. */
  json(value, set, name, rows = 4) {
    const input = this.named(el("textarea", { rows, className: "json", value: value === undefined ? "" : JSON.stringify(value, null, rows > 1 ? 2 : 0) }), name);
    input.addEventListener("input", () => {
      if (input.value.trim() === "") return set(undefined);
      try {
        set(JSON.parse(input.value));
        input.setCustomValidity("");
      } catch (error) {
        input.setCustomValidity(`not JSON: ${error.message}`);
      }
    });
    input.addEventListener("change", () => input.reportValidity()); // said when leaving the field, not at every key
    return input;
  }
}
