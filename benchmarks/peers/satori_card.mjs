// The social card with Satori (layout and text to SVG) and resvg-js (SVG to PNG).
//
// A long-running process, so that timings exclude Node start-up and font loading.
// Protocol, one JSON object per line: the first line on stdin is {"logo": dataUri,
// "qr": dataUri} and is answered with {"ready": true, "versions": {...}}; each later
// line is {"title": string, "out"?: path} and is answered with {"bytes": n, "ms": t},
// where t is the time Satori and resvg took for that card. "out" also saves the PNG.
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";

const FONTS = new URL("../../src/templatekit/fonts/", import.meta.url);
const font = (file, weight) => ({ name: "Inter", data: readFileSync(new URL(file, FONTS)), weight, style: "normal" });
const fonts = [font("Inter-Regular.otf", 400), font("Inter-SemiBold.otf", 600), font("Inter-Bold.otf", 700)];

const h = (type, style, ...children) => ({ type, props: { style, children } });
const at = (left, top, style) => ({ position: "absolute", left, top, display: "flex", ...style });

function card(title, logo, qr) {
  return h(
    "div",
    {
      display: "flex",
      position: "relative",
      width: 1200,
      height: 630,
      overflow: "hidden",
      fontFamily: "Inter",
      backgroundImage: "linear-gradient(135deg, #1e1b4b, #0f172a)",
    },
    h("div", at(760, -220, { width: 640, height: 640, borderRadius: "50%", backgroundColor: "rgba(99, 102, 241, 0.149)" })),
    { type: "img", props: { src: logo, width: 56, height: 56, style: at(64, 56, {}) } },
    h("div", at(136, 64, { width: 400, height: 40, alignItems: "center", fontSize: 30, fontWeight: 600, lineHeight: 1.2, color: "#e2e8f0" }), "templatekit"),
    h(
      "div",
      at(64, 168, { width: 760, height: 356, flexDirection: "column", justifyContent: "center", gap: 20 }),
      h("div", { fontSize: 64, fontWeight: 700, lineHeight: 1.15, color: "#ffffff" }, title),
      h(
        "div",
        { fontSize: 28, fontWeight: 400, lineHeight: 1.35, color: "#94a3b8" },
        "One JSON design, many outputs: PNG, JPEG, WebP, PDF and video.",
      ),
    ),
    h(
      "div",
      at(908, 300, { width: 228, height: 228, alignItems: "center", justifyContent: "center", backgroundColor: "#ffffff" }),
      { type: "img", props: { src: qr.uri, width: qr.side, height: qr.side } },
    ),
    h("div", at(908, 540, { width: 228, justifyContent: "center", fontSize: 18, lineHeight: 1.2, color: "#cbd5e1" }), "Scan to read the docs"),
    h("div", at(64, 560, { fontSize: 22, fontWeight: 600, lineHeight: 1.2, color: "#818cf8" }), "templatekit.dev"),
  );
}

async function render(title, logo, qr) {
  const svg = await satori(card(title, logo, qr), { width: 1200, height: 630, fonts });
  return new Resvg(svg, { fitTo: { mode: "original" }, font: { loadSystemFonts: false } }).render().asPng();
}

const version = (name) => JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, import.meta.url))).version;
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

let assets = null;
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  if (assets === null) {
    assets = request;
    send({ ready: true, versions: { node: process.versions.node, satori: version("satori"), "resvg-js": version("@resvg/resvg-js") } });
    continue;
  }
  const start = performance.now();
  const png = await render(request.title, assets.logo, assets.qr);
  const ms = performance.now() - start;
  if (request.out) writeFileSync(request.out, png);
  send({ bytes: png.length, ms });
}
