// The layer tree: frames hold layers, at any depth. Names are unique across the whole
// template, so a name finds a layer wherever it is; a layer's place is its parent frame
// (or none: the canvas) and its index there, in paint order.

/** Every layer of ``layers`` in paint order, each frame followed by what it holds:
 * ``{layer, parent, siblings, index, depth, path}`` (``path`` as JSON paths are written). */
export function* walk(layers, parent = null, path = ["layers"], depth = 0) {
  for (const [index, layer] of (layers || []).entries()) {
    const at = [...path, index];
    yield { layer, parent, siblings: layers, index, depth, path: at };
    if (isFrame(layer)) yield* walk(layer.layers || [], layer, [...at, "layers"], depth + 1);
  }
}

/** Where the layer named ``name`` is, or null. */
export function locate(template, name) {
  for (const entry of walk(template?.layers)) if (entry.layer.name === name) return entry;
  return null;
}

export function isFrame(layer) {
  return layer?.type === "frame";
}

/** Whether ``frame`` places its layers one after another (row or column). */
export function flows(frame) {
  return isFrame(frame) && (frame.layout === "row" || frame.layout === "column");
}

/** Whether ``name`` is ``layer`` or is held by it at any depth. */
export function holds(layer, name) {
  if (layer.name === name) return true;
  return isFrame(layer) && (layer.layers || []).some((child) => holds(child, name));
}

const size = (value) => (typeof value === "number" ? value : null);

/** A layer's box in its parent's coordinates: its own numbers where it has them, else
 * where the last render's layout put it (``boxes``: name -> [x, y, width, height] on the
 * canvas). Before the first render of a frame, a box that hugs or fills is a stand-in. */
export function localBox(entry, boxes) {
  const { layer, parent } = entry;
  const laid = boxes[layer.name];
  const width = size(layer.width) ?? laid?.[2] ?? 100;
  const height = size(layer.height) ?? laid?.[3] ?? 100;
  if (flows(parent)) {
    const outer = boxes[parent.name];
    if (laid && outer) return { x: laid[0] - outer[0], y: laid[1] - outer[1], width, height };
    return { x: 0, y: 0, width, height };
  }
  return { x: layer.x ?? 0, y: layer.y ?? 0, width, height };
}

/** Every layer's box on the canvas (its frames' turns aside), by name, with where it is:
 * ``{x, y, width, height, entry}``. */
export function canvasBoxes(template, boxes) {
  const found = new Map();
  for (const entry of walk(template?.layers)) {
    const box = localBox(entry, boxes);
    const outer = entry.parent ? found.get(entry.parent.name) : { x: 0, y: 0 };
    found.set(entry.layer.name, { ...box, x: box.x + outer.x, y: box.y + outer.y, entry });
  }
  return found;
}

/** One layer's box on the canvas (see ``canvasBoxes``), or null. */
export function canvasBox(template, name, boxes) {
  return canvasBoxes(template, boxes).get(name) ?? null;
}

/** Moves the layer named ``name`` into ``parentName`` (null: the canvas) at ``index``
 * of its layers, keeping where it is on the canvas: coordinates follow the new parent,
 * a row or column frame places it itself, and a size that only a frame can work out
 * becomes the number it was. Returns false when the move cannot be made. */
export function moveLayer(template, name, parentName, index, boxes) {
  const entry = locate(template, name);
  const parent = parentName === null ? null : locate(template, parentName)?.layer;
  if (!entry || (parentName !== null && (!isFrame(parent) || holds(entry.layer, parentName)))) return false;
  const box = canvasBox(template, name, boxes);
  const origin = parent ? canvasBox(template, parent.name, boxes) : { x: 0, y: 0 };
  const target = parent ? (parent.layers ||= []) : template.layers;
  entry.siblings.splice(entry.index, 1);
  if (target === entry.siblings && entry.index < index) index -= 1;
  const layer = entry.layer;
  if (flows(parent)) {
    delete layer.x;
    delete layer.y;
  } else {
    layer.x = Math.round(box.x - origin.x);
    layer.y = Math.round(box.y - origin.y);
    // outside a row or column nothing fills; on the canvas only a frame hugs
    for (const [field, measured] of [["width", box.width], ["height", box.height]]) {
      if (layer[field] === "fill" || (layer[field] === "hug" && !parent && !isFrame(layer))) layer[field] = Math.round(measured);
    }
  }
  target.splice(Math.max(0, Math.min(index, target.length)), 0, layer);
  return true;
}

/** Wraps the layers named ``names`` (all held by the same parent) in a new frame named
 * ``frameName`` at their bounds, where the front-most of them was; they keep their
 * places on the canvas. Returns the frame, or a message saying why it cannot be made. */
export function wrapInFrame(template, names, frameName, boxes) {
  const entries = names.map((name) => locate(template, name)).filter(Boolean);
  if (!entries.length) return "select the layers to put in a frame";
  const parent = entries[0].parent;
  if (entries.some((entry) => entry.parent !== parent)) return "the layers to put in a frame must be in the same frame";
  entries.sort((a, b) => a.index - b.index);
  const placed = entries.map((entry) => canvasBox(template, entry.layer.name, boxes));
  const left = Math.min(...placed.map((b) => b.x));
  const top = Math.min(...placed.map((b) => b.y));
  const width = Math.max(...placed.map((b) => b.x + b.width)) - left;
  const height = Math.max(...placed.map((b) => b.y + b.height)) - top;
  const siblings = entries[0].siblings;
  const frame = { type: "frame", name: frameName, width: Math.round(width), height: Math.round(height), layers: [] };
  if (!flows(parent)) {
    const origin = parent ? canvasBox(template, parent.name, boxes) : { x: 0, y: 0 };
    Object.assign(frame, { x: Math.round(left - origin.x), y: Math.round(top - origin.y) });
  }
  const at = entries[entries.length - 1].index - entries.length + 1;
  for (const entry of [...entries].reverse()) siblings.splice(entry.index, 1);
  siblings.splice(at, 0, frame);
  entries.forEach((entry, i) => {
    const layer = entry.layer;
    Object.assign(layer, { x: Math.round(placed[i].x - left), y: Math.round(placed[i].y - top) });
    for (const field of ["width", "height"]) {
      if (typeof layer[field] !== "number" && layer[field] !== "hug") layer[field] = Math.round(placed[i][field]);
    }
    frame.layers.push(layer);
  });
  return frame;
}

/** A frame's padding as ``{top, right, bottom, left}``: one number, or 1 to 4 in CSS order. */
export function insets(padding) {
  const [top, right = top, bottom = top, left = right] = Array.isArray(padding) ? padding : [padding ?? 0];
  return { top, right, bottom, left };
}

/** The layers as panels list them: front-most first, each frame followed by the layers
 * it holds: ``{layer, depth}``. */
export function listed(layers, depth = 0) {
  return [...(layers || [])].reverse().flatMap((layer) => [
    { layer, depth },
    ...(isFrame(layer) ? listed(layer.layers, depth + 1) : []),
  ]);
}

/** Sets a frame's ``layout`` (undefined: its default, none). Its layers go with it: a
 * row or column places them (their ``x``/``y`` go); back to none, each stays where the
 * layout had put it, and a size that filled the row becomes the number it was. */
export function setLayout(frame, layout, boxes) {
  const flowed = flows(frame);
  if (layout === undefined) delete frame.layout;
  else frame.layout = layout;
  if (flows(frame)) {
    for (const child of frame.layers || []) {
      delete child.x;
      delete child.y;
    }
    return;
  }
  const outer = boxes[frame.name];
  if (!flowed || !outer) return;
  for (const child of frame.layers || []) {
    const laid = boxes[child.name];
    if (!laid) continue;
    Object.assign(child, { x: Math.round(laid[0] - outer[0]), y: Math.round(laid[1] - outer[1]) });
    if (child.width === "fill") child.width = Math.round(laid[2]);
    if (child.height === "fill") child.height = Math.round(laid[3]);
  }
}
