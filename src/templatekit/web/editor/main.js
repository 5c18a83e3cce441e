// The template editor: connects with a key kept in this page's memory only (or, served
// by ``templatekit edit``, with the session token in its address), opens or starts a
// template, and wires the canvas, panels and shortcuts to one document.

import { Api, apiNextTo } from "../common/api.js";
import { Canvas } from "./canvas.js";
import { Doc, getAt } from "./doc.js";
import { Forms } from "./forms.js";
import { Inspector } from "./inspector.js";
import { LayersPanel } from "./layers.js";
import { FormatSchema } from "./schema.js";
import { TextFit } from "./textfit.js";
import { Timeline } from "./timeline.js";
import { TryIt } from "./tryit.js";
import { Versions } from "./versions.js";

const $ = (id) => document.getElementById(id);
const doc = new Doc();
const session = { api: null, templateId: null, version: null, local: false };
let ui = null; // the panels, once connected

function say(text, failed = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", failed);
}

async function connect(key, { templateId = null, local = false, renew = null } = {}) {
  session.api = new Api(apiNextTo(document.baseURI), key, renew);
  session.local = local;
  say("connecting…");
  try {
    const [schema, fonts, templates] = await Promise.all([
      FormatSchema.load(session.api),
      session.api.json("/fonts"),
      session.api.json("/templates"),
    ]);
    ui = build(schema, fonts.map((font) => font.family));
    $("connect").hidden = true;
    $("open-box").hidden = local;
    $("doc-actions").hidden = false;
    $("workspace").hidden = false;
    listTemplates(templates);
    const first = templateId || (local ? templates[0]?.id : null);
    if (first) {
      $("templates").value = first;
      await ui.versions.open(first);
    } else {
      ui.versions.blank();
    }
    say(local ? "editing the file: Save writes it" : `${templates.length} templates`);
  } catch (error) {
    say(error.message, true);
  }
}

/** The templates to open, the one being edited chosen (none: "choose…"). */
function listTemplates(templates) {
  const options = templates.map((t) => new Option(`${t.name} (${t.width}×${t.height})`, t.id));
  $("templates").replaceChildren(new Option(`choose… (${templates.length})`, ""), ...options);
  $("templates").value = session.templateId || "";
}

function build(schema, bundledFonts) {
  const templateFonts = () => (doc.template?.fonts || []).map((font) => font.family).filter(Boolean);
  const measured = (path) => {
    const layer = getAt(doc.template, path.slice(0, -1));
    return layer && doc.boxes[layer.name]?.[path[path.length - 1] === "width" ? 2 : 3];
  };
  const forms = new Forms(schema, () => [...new Set([...templateFonts(), ...bundledFonts])], measured, (file) => session.api.upload(file));
  const canvas = new Canvas(doc, session.api, { stage: $("stage"), image: $("canvas"), overlay: $("overlay") });
  const layers = new LayersPanel(doc, schema, {
    list: $("layers"), kind: $("kind"), add: $("add"), duplicate: $("duplicate"), remove: $("delete"),
    frame: $("frame-selection"),
  });
  const inspector = new Inspector(doc, schema, forms, {
    layer: $("pane-layer"), settings: $("pane-template"), problems: $("problems"),
  });
  const textFit = new TextFit(doc);
  inspector.addEventListener("set", ({ detail }) => textFit.changed(detail.path, detail.key));
  const timeline = new Timeline(doc, canvas, {
    box: $("timeline"), rows: $("timeline-rows"), scrub: $("scrub"), moment: $("moment"), atRest: $("at-rest"),
  });
  const versions = new Versions(doc, session, { list: $("versions"), exportButton: $("export"), importInput: $("import") });
  const tryIt = new TryIt(doc, schema, session, {
    modifications: $("try-modifications"), sample: $("try-sample"), format: $("try-format"), png: $("try-png"),
    pdf: $("try-pdf"), video: $("try-video"), videoBox: $("try-video-box"), videoFormat: $("try-video-format"), sign: $("try-sign"), expires: $("try-expires"), signed: $("try-signed"),
    signedBox: $("try-signed-box"), curl: $("try-curl"), python: $("try-python"), result: $("try-result"),
    status: $("try-status"), note: $("try-note"),
  });

  doc.addEventListener("open", () => {
    canvas.time = null;
    layers.showKinds();
    canvas.fit();
    canvas.changed();
    everything("");
    tryIt.opened();
  });
  doc.addEventListener("change", (event) => {
    canvas.changed();
    everything(event.detail.source);
  });
  doc.addEventListener("select", () => {
    canvas.drawOverlay();
    layers.showSelection();
    inspector.drawLayer();
    inspector.showProblems(inspector.problems);
    timeline.draw();
    if (doc.selection.size) showTab("layer");
  });
  doc.addEventListener("saved", () => {
    showDirty();
    tryIt.draw();
  });
  canvas.addEventListener("rendered", ({ detail }) => {
    $("render-note").textContent = $("render-note").title = detail.kind === "quick" ? "preview" : detail.warnings.join("; ");
    inspector.showProblems([]);
    if (detail.kind !== "full") return;
    inspector.showScans(detail.scans || []);
    if (JSON.stringify(detail.cues) !== JSON.stringify(timeline.cues)) {
      timeline.cues = detail.cues;
      timeline.draw();
    }
    const grown = detail.current ? textFit.rendered(detail.textHeights) : null;
    if (grown) inspector.showValue(grown, getAt(doc.template, grown));
  });
  canvas.addEventListener("failed", ({ detail: error }) => {
    $("render-note").textContent = "not rendered: see the problems";
    inspector.showProblems(error.problems?.length ? error.problems : [error.message]);
  });
  doc.addEventListener("refused", ({ detail }) => say(detail.message, true));
  canvas.addEventListener("zoom", ({ detail }) => ($("zoom-label").textContent = `${Math.round(detail * 100)} %`));
  versions.addEventListener("status", ({ detail }) => say(detail.text, detail.failed));
  versions.addEventListener("problems", ({ detail }) => inspector.showProblems(detail));
  // a new template, or a new name, shows in the list at once
  versions.addEventListener("stored", () => session.api.json("/templates").then(listTemplates, () => {}));

  function everything(source) {
    if (source !== "history" && doc.template.video === undefined) canvas.time = null;
    layers.showKinds();
    layers.draw();
    inspector.draw(source);
    timeline.draw();
    showDirty();
    if (!$("pane-try").hidden) tryIt.draw();
  }

  return { canvas, layers, inspector, timeline, versions, tryIt };
}

function showDirty() {
  $("save").textContent = doc.dirty ? "Save •" : "Save";
  $("undo").disabled = !doc.past.length;
  $("redo").disabled = !doc.future.length;
  document.title = `${doc.dirty ? "• " : ""}${doc.template?.name || "templatekit"} · editor`;
}

function showTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const chosen = tab.id === `tab-${name}`;
    tab.setAttribute("aria-selected", String(chosen));
    $(tab.getAttribute("aria-controls")).hidden = !chosen;
  }
  if (name === "try") ui?.tryIt.draw();
  if (name === "versions") ui?.versions.refresh().catch((error) => say(error.message, true));
}

// ------------------------------------------------------------------ controls

$("connect").addEventListener("submit", (event) => {
  event.preventDefault();
  $("link-key").hidden = true;
  connect($("key").value.trim(), { templateId: hashParams().get("template") });
});
$("templates").addEventListener("change", async () => {
  const id = $("templates").value;
  if (!id || (doc.dirty && !confirm("Open another template and drop the changes you have not saved?"))) return;
  try {
    await ui.versions.open(id);
  } catch (error) {
    say(error.message, true);
  }
});
$("new").addEventListener("click", () => {
  if (doc.dirty && !confirm("Start a new template and drop the changes you have not saved?")) return;
  $("templates").value = "";
  ui.versions.blank();
});
$("undo").addEventListener("click", () => doc.undo());
$("redo").addEventListener("click", () => doc.redo());
$("save").addEventListener("click", () => ui.versions.save());
$("fit").addEventListener("click", () => ui.canvas.fit());
$("actual").addEventListener("click", () => ui.canvas.setZoom(1));
$("zoom-in").addEventListener("click", () => ui.canvas.setZoom(ui.canvas.zoom * 1.25));
$("zoom-out").addEventListener("click", () => ui.canvas.setZoom(ui.canvas.zoom / 1.25));
$("snap").addEventListener("change", () => (ui.canvas.snapping = $("snap").checked));
$("grid").addEventListener("input", () => ui.canvas.setGrid(Math.max(0, Number($("grid").value) || 0)));
for (const tab of document.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => showTab(tab.id.replace("tab-", "")));
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

document.addEventListener("keydown", (event) => {
  if (!ui || !doc.template) return;
  // keys go to a field that takes text or a choice; not to a checkbox or a button
  const typing = event.target.closest("textarea, select, [contenteditable]") ||
    (event.target.matches("input") && !["checkbox", "radio", "button", "file", "color"].includes(event.target.type));
  const command = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  if (command && event.altKey && key === "g") {
    event.preventDefault();
    ui.layers.frameSelection();
  } else if (command && key === "s") {
    event.preventDefault();
    ui.versions.save();
  } else if (typing) {
    return; // the field's own undo, arrows and delete
  } else if (command && key === "z") {
    event.preventDefault();
    if (event.shiftKey) doc.redo();
    else doc.undo();
  } else if (command && key === "y") {
    event.preventDefault();
    doc.redo();
  } else if (command && key === "d") {
    event.preventDefault();
    ui.layers.duplicate();
  } else if (command && key === "a") {
    event.preventDefault();
    doc.select(doc.layers.filter((layer) => !layer.locked).map((layer) => layer.name));
  } else if (event.key === "Delete" || event.key === "Backspace") {
    event.preventDefault();
    ui.layers.remove();
  } else if (event.key === "Escape") {
    doc.select([]);
  } else if (ARROWS[event.key] && doc.selection.size) {
    event.preventDefault();
    const [dx, dy] = ARROWS[event.key];
    const step = event.shiftKey ? 10 : 1;
    ui.canvas.nudge(dx * step, dy * step);
  }
});
document.addEventListener("keyup", (event) => ARROWS[event.key] && doc.settle());

window.addEventListener("beforeunload", (event) => {
  if (doc.dirty) event.preventDefault();
});

function hashParams() {
  return new URLSearchParams(location.hash.slice(1));
}

/** A key in the link fills the field, and waits for Connect: the link may carry someone
 * else's key, and what is saved with it goes to their workspace. It leaves the address. */
function offerLinkKey(given) {
  $("key").value = given.get("key");
  $("link-key-start").textContent = `${given.get("key").slice(0, 12)}…`;
  $("link-key").hidden = false;
  given.delete("key");
  const rest = given.toString();
  history.replaceState(null, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
  $("connect").querySelector("button").focus();
}

// ``templatekit edit`` marks the page it serves, and opens it with its session token:
// that connects at once (a link cannot hold a token of that server, which it never shows).
/** Opened from the dashboard (``#dashboard=WORKSPACE&project=…``): the dashboard, where
 * the person is signed in, hands this page a short-lived key of the project, kept in
 * this page's memory only. The header is what another site's page cannot send. */
async function connectFromDashboard(given) {
  const workspace = encodeURIComponent(given.get("dashboard"));
  const project = encodeURIComponent(given.get("project") || "");
  // The key ends after two hours (or with the session): a refused call asks for another,
  // so that the work of a long session is saved rather than lost to a reload.
  const ask = async () => {
    const response = await fetch(new URL(`../dashboard/w/${workspace}/p/${project}/editor-key`, document.baseURI), {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-Templatekit-Page": "editor" },
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok || !answer.key) throw new Error(`the dashboard gave no key: ${answer.error || response.status}`);
    return answer.key;
  };
  say("asking the dashboard for a key…");
  let key;
  try {
    key = await ask();
  } catch (error) {
    say(error.message, true);
    return;
  }
  await connect(key, { templateId: given.get("template"), renew: ask });
}

const given = hashParams();
const servedByEdit = document.documentElement.hasAttribute("data-templatekit-edit");
if (given.get("key") && servedByEdit) connect(given.get("key"), { templateId: given.get("template"), local: true });
else if (given.get("key")) offerLinkKey(given);
else if (given.get("dashboard")) connectFromDashboard(given);
