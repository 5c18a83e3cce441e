// The playground: one form field per layer of a template, a live preview, the same
// request as curl and Python, signed URLs and video renders. The API key stays in this
// page's memory: it is sent to the server, and never stored.

import { Api, apiNextTo, curlCode, pythonCode, renderVideoStreamed, signedUrl, warningsOf } from "../common/api.js";

const api = apiNextTo(document.baseURI);
const $ = (id) => document.getElementById(id);
const state = {
  client: null,
  template: null,
  designed: new Map(),
  changed: new Map(),
  previewSerial: 0,
  chooseSerial: 0,
  timer: 0,
};

const call = (path, options) => state.client.call(path, options);

// ------------------------------------------------------------------ requests

function modifications() {
  return [...state.changed].map(([name, fields]) => ({ name, ...fields }));
}

function renderBody(extra = {}) {
  const body = { templateId: state.template.id, ...extra };
  if (state.changed.size) body.modifications = modifications();
  return body;
}

// ------------------------------------------------------------------ connecting

$("connect").addEventListener("submit", async (event) => {
  event.preventDefault();
  state.client = new Api(api, $("key").value.trim());
  setStatus("connecting…");
  try {
    const templates = await (await call("/templates")).json();
    const select = $("template");
    select.replaceChildren(
      ...templates.map((t) => new Option(`${t.name} (${t.width}×${t.height}${t.kind === "video" ? ", video" : ""})`, t.id)),
    );
    select.dataset.kinds = JSON.stringify(Object.fromEntries(templates.map((t) => [t.id, t])));
    setStatus(`${templates.length} templates`);
    $("editor").hidden = templates.length === 0;
    if (templates.length) await chooseTemplate(templates[0].id);
  } catch (error) {
    setStatus(error.message, true);
  }
});

function setStatus(text, failed = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", failed);
}

$("template").addEventListener("change", (event) => chooseTemplate(event.target.value));

async function chooseTemplate(id) {
  const serial = ++state.chooseSerial;
  const summary = JSON.parse($("template").dataset.kinds)[id];
  const path = `/templates/${encodeURIComponent(id)}`;
  const [details, source] = await Promise.all([call(path), call(`${path}/source`)].map(async (r) => (await r).json()));
  if (serial !== state.chooseSerial) return; // another template was chosen meanwhile
  state.template = { ...summary, ...details };
  state.designed = new Map((source.layers || []).map((layer) => [layer.name, layer]));
  state.changed = new Map();
  $("template-info").textContent = `${summary.width}×${summary.height} px, ${details.layers.length} layers`;
  $("fields").replaceChildren(...details.layers.map(fieldFor));
  $("output").hidden = false;
  $("render-video").hidden = summary.kind !== "video";
  $("video-box").hidden = true;
  $("signed").textContent = "";
  $("signed-preview").hidden = true;
  refresh();
}

// ------------------------------------------------------------------ one field per layer

function fieldFor(layer) {
  const box = document.createElement("fieldset");
  box.dataset.layer = layer.name;
  const legend = document.createElement("legend");
  legend.textContent = `${layer.name} `;
  const kind = document.createElement("small");
  kind.textContent = layer.type;
  legend.append(kind);
  box.append(legend);
  const set = (field, value) => change(layer.name, field, value);
  const designed = state.designed.get(layer.name) || {};
  switch (layer.type) {
    case "text":
    case "alert":
    case "signature":
      box.append(textInput(layer, "text", set, true), colorInput("color", designed.color, set));
      break;
    case "image":
      box.append(textInput(layer, "src", set), fileInput(set));
      break;
    case "shape":
      box.append(colorInput("fill", designed.fill, set));
      break;
    case "qrcode":
    case "barcode":
      box.append(textInput(layer, layer.type, set));
      break;
    case "star":
      box.append(starInput(layer, set));
      break;
    case "table":
    case "chart":
    case "keyvalue":
      box.append(rowsEditor(layer, set));
      break;
    default:
      box.append(textInput(layer, "text", set));
  }
  return box;
}

function labelled(text, input) {
  const label = document.createElement("label");
  label.append(text, input);
  return label;
}

function textInput(layer, field, set, multiline = false) {
  const input = document.createElement(multiline ? "textarea" : "input");
  input.name = `${layer.name}.${field}`;
  input.value = layer.suggestInput;
  if (multiline) input.rows = Math.min(4, Math.max(1, layer.suggestInput.split("\n").length));
  input.addEventListener("input", () => set(field, input.value));
  return labelled(field, input);
}

// A canvas context reads any CSS colour the template format allows (names, rgb(),
// #rgb, #rrggbbaa) back as "#rrggbb" or "rgba(r, g, b, a)".
const colorProbe = document.createElement("canvas").getContext("2d");

function pickerColor(value) {
  colorProbe.fillStyle = "#000000";
  colorProbe.fillStyle = value;
  const normal = colorProbe.fillStyle;
  if (normal.startsWith("#")) return { hex: normal, alpha: "" };
  const [r, g, b, a] = normal.match(/[\d.]+/g).map(Number);
  const hex = (n) => n.toString(16).padStart(2, "0");
  return { hex: `#${hex(r)}${hex(g)}${hex(b)}`, alpha: hex(Math.round(a * 255)) };
}

function colorInput(field, designed, set) {
  // The picker starts at the layer's own colour; a gradient starts at its first colour
  // and becomes a plain colour when picked. The colour's alpha is kept, as the picker has none.
  const input = document.createElement("input");
  input.type = "color";
  input.name = field;
  const gradient = designed && typeof designed === "object";
  const color = pickerColor(gradient ? designed.from : designed ?? "#000000");
  input.value = color.hex;
  const note = designed === undefined ? " (default)" : gradient ? " (gradient)" : "";
  const label = labelled(`${field}${note}`, input);
  input.addEventListener("input", () => {
    label.firstChild.textContent = field;
    set(field, input.value + color.alpha);
  });
  return label;
}

function fileInput(set) {
  const input = document.createElement("input");
  input.type = "file";
  input.accept = "image/png,image/jpeg,image/webp,image/gif,image/svg+xml";
  input.addEventListener("change", () => {
    const file = input.files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => set("src", reader.result);
    reader.readAsDataURL(file);
  });
  return labelled("or a file", input);
}

function starInput(layer, set) {
  const input = document.createElement("input");
  input.type = "range";
  input.min = 0;
  input.max = 5;
  input.step = 0.5;
  input.value = Number(layer.suggestInput) || 0;
  const shown = document.createElement("output");
  shown.textContent = input.value;
  input.addEventListener("input", () => {
    shown.textContent = input.value;
    set("star", Number(input.value));
  });
  const label = labelled("star", input);
  label.append(shown);
  return label;
}

function rowsEditor(layer, set) {
  let rows;
  try {
    rows = JSON.parse(layer.suggestInput || "[]");
  } catch {
    rows = [];
  }
  const flat = Array.isArray(rows) && rows.every((row) => row && typeof row === "object" && !Array.isArray(row) &&
    Object.values(row).every((value) => value === null || typeof value !== "object"));
  if (!flat) return jsonEditor(layer, set);
  const editor = $("rows-editor").content.firstElementChild.cloneNode(true);
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const head = editor.querySelector("thead");
  const body = editor.querySelector("tbody");
  head.innerHTML = "<tr></tr>";
  for (const column of columns) head.firstChild.append(Object.assign(document.createElement("th"), { textContent: column }));
  const emit = () => set("rows", [...body.rows].map((tr) =>
    Object.fromEntries(columns.map((column, i) => [column, typed(tr.cells[i].firstChild.value, rows[0]?.[column])]))));
  const addRow = (row) => {
    const tr = body.insertRow();
    for (const column of columns) {
      const input = Object.assign(document.createElement("input"), { value: row[column] ?? "" });
      input.addEventListener("input", emit);
      tr.insertCell().append(input);
    }
    const remove = Object.assign(document.createElement("button"), { type: "button", textContent: "×", title: "remove" });
    remove.addEventListener("click", () => { tr.remove(); emit(); });
    tr.insertCell().append(remove);
  };
  rows.forEach(addRow);
  editor.querySelector(".add-row").addEventListener("click", () => { addRow({}); emit(); });
  return editor;
}

function typed(text, example) {
  if (typeof example === "number" && text.trim() !== "" && !Number.isNaN(Number(text))) return Number(text);
  if (typeof example === "boolean") return text === "true";
  return text;
}

function jsonEditor(layer, set) {
  const input = document.createElement("textarea");
  input.rows = 6;
  input.value = layer.suggestInput;
  input.addEventListener("input", () => {
    try {
      set("rows", JSON.parse(input.value));
      input.setCustomValidity("");
    } catch (error) {
      input.setCustomValidity(error.message);
    }
    input.reportValidity();
  });
  return labelled("rows (JSON)", input);
}

function change(layer, field, value) {
  state.changed.set(layer, { ...(state.changed.get(layer) || {}), [field]: value });
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, 300);
}

// ------------------------------------------------------------------ preview and code

function refresh() {
  showCode();
  preview({ thumbnail: true });
}

async function preview(extra) {
  const serial = ++state.previewSerial;
  $("preview-note").textContent = extra.thumbnail ? "thumbnail (free)" : "rendering…";
  try {
    const response = await call("/templates/createImage", { method: "POST", body: renderBody(extra) });
    const blob = await response.blob();
    if (serial !== state.previewSerial) return; // a newer preview is on its way
    $("warnings").textContent = warningsOf(response).join("\n");
    URL.revokeObjectURL($("preview").src);
    $("preview").src = URL.createObjectURL(blob);
    $("preview-note").textContent = extra.thumbnail ? "thumbnail (free)" : `full size, ${Math.round(blob.size / 1024)} KB`;
  } catch (error) {
    if (serial === state.previewSerial) $("preview-note").textContent = error.message;
  }
}

$("render").addEventListener("click", () => preview({ format: $("format").value }));

$("render-pdf").addEventListener("click", async () => {
  try {
    const response = await call("/templates/createPdf", { method: "POST", body: renderBody() });
    // downloaded, not opened: a PDF opened from this page would take its
    // Content-Security-Policy, under which a browser's PDF viewer may not run
    const link = Object.assign(document.createElement("a"), { download: `${state.template.id}.pdf` });
    link.href = URL.createObjectURL(await response.blob());
    link.click();
  } catch (error) {
    $("preview-note").textContent = error.message;
  }
});

function showCode() {
  // A video template's request is renderVideo, which waits and answers {"url", "id"}.
  const video = state.template.kind === "video";
  const operation = video ? "renderVideo" : "createImage";
  const body = video ? renderBody() : renderBody({ format: $("format").value });
  const output = video ? "" : `out.${body.format}`;
  $("curl").textContent = curlCode(api, operation, body, output);
  $("python").textContent = pythonCode(api, operation, body, output);
}

$("format").addEventListener("change", showCode);

// ------------------------------------------------------------------ signed URLs

$("sign").addEventListener("click", async () => {
  const url = await signedUrl(api, state.client.key, {
    templateId: state.template.id,
    format: $("format").value,
    modifications: modifications(),
    expiresIn: $("expires").value,
  });
  $("signed").textContent = url;
  $("signed-preview").src = url;
  $("signed-preview").hidden = false;
});

// ------------------------------------------------------------------ videos

$("render-video").addEventListener("click", async () => {
  $("video-box").hidden = false;
  $("video").hidden = true;
  $("video-progress").value = 0;
  $("video-status").textContent = "sending…";
  const show = (text, progress) => {
    $("video-status").textContent = text;
    $("video-progress").value = progress;
  };
  try {
    $("video").src = await renderVideoStreamed(state.client, renderBody(), show);
    $("video").hidden = false;
  } catch (error) {
    $("video-status").textContent = error.message;
  }
});
